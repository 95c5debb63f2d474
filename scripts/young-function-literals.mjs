/**
 * V8 allocates a function literal assigned straight to a property (`transport.onclose = () => …`)
 * in the old generation: its parser takes it for a method, to live as long as its object
 * ("pretenure", CheckAssigningFunctionLiteralToProperty in V8's parser). The MCP SDK makes such
 * closures for every request (a server's connect() gives the transport three, the transport keeps
 * an abort cleanup): old at birth, each keeps its young context, and through it the request's
 * objects, alive through every young-generation collection until a full one (docs/mcp.md,
 * "Cost"). `(0, fn)` is the same function, but not a literal on the right of the assignment, so
 * V8 allocates it in the young generation like any other closure. scripts/build-mcp-sdk.mjs
 * applies this to the bundled SDK; test/mcp/sdk-bundle.test.ts checks the bundle.
 */
import ts from 'typescript5';

// V8 pretenures the literal on the right of `=` and of the logical assignments alike.
const ASSIGNMENTS = new Set([ts.SyntaxKind.EqualsToken, ts.SyntaxKind.QuestionQuestionEqualsToken, ts.SyntaxKind.BarBarEqualsToken, ts.SyntaxKind.AmpersandAmpersandEqualsToken]);

/** `code` with each function literal assigned straight to a property wrapped in `(0, …)`, and how many there were. */
export function youngFunctionLiterals(code) {
  const source = ts.createSourceFile('code.js', code, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  if (source.parseDiagnostics.length) throw new Error(`young function literals: the code does not parse: ${ts.flattenDiagnosticMessageText(source.parseDiagnostics[0].messageText, ' ')}`);
  const inserts = [];
  const visit = (node) => {
    if (ts.isBinaryExpression(node) && ASSIGNMENTS.has(node.operatorToken.kind) && (ts.isPropertyAccessExpression(node.left) || ts.isElementAccessExpression(node.left))) {
      let value = node.right;
      while (ts.isParenthesizedExpression(value)) value = value.expression;
      if (ts.isArrowFunction(value) || ts.isFunctionExpression(value)) {
        // A literal ended by an inserted semicolon would, wrapped, become a callee or an operand of the next line.
        if (!/^\s*([;,)\]}]|$)/.test(code.slice(value.getEnd(), value.getEnd() + 200)))
          throw new Error(`young function literals: the literal at ${value.getStart(source)} is not followed by ; , ) ] or }: wrapping it could join it to what follows`);
        inserts.push([value.getStart(source), '(0,'], [value.getEnd(), ')']);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  // From the end, so the positions before each insert stay those of the code parsed.
  inserts.sort((a, b) => b[0] - a[0]);
  let wrapped = code;
  for (const [at, text] of inserts) wrapped = `${wrapped.slice(0, at)}${text}${wrapped.slice(at)}`;
  return { code: wrapped, count: inserts.length / 2 };
}
