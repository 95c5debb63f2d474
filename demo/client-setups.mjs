// Ready-made MCP client setups for svc's tool server: the MCP Inspector and the common IDE and
// desktop agents, each with the URL and the bearer header. `npm run demo -- --keep` prints them
// for its running service; docs/mcp.md shows them for the default address, and
// test/mcp/client-setups.test.ts keeps the two the same and runs the Inspector's.

/**
 * Each client's setup: where it goes and what to write there (or run).
 * @param {string} url the tool server's URL, e.g. http://127.0.0.1:7070/mcp
 * @param {string} token a bearer token configured under svc.mcp.tokens
 * @param {string} name the name the client shows for the server
 */
export function clientSetups(url, token, name = 'svc') {
  const authorization = `Bearer ${token}`;
  const json = (value) => JSON.stringify(value, null, 2);
  return [
    {
      client: 'MCP Inspector',
      where: `a file, e.g. mcp.json; then \`npx @modelcontextprotocol/inspector --config mcp.json --server ${name}\` (web UI), or \`npx @modelcontextprotocol/inspector --cli --config mcp.json --server ${name} --method tools/list\``,
      text: json({ mcpServers: { [name]: { type: 'http', url, headers: { Authorization: authorization } } } }),
    },
    { client: 'VS Code (Copilot agent mode)', where: '.vscode/mcp.json', text: json({ servers: { [name]: { type: 'http', url, headers: { Authorization: authorization } } } }) },
    { client: 'Cursor', where: '~/.cursor/mcp.json or .cursor/mcp.json', text: json({ mcpServers: { [name]: { url, headers: { Authorization: authorization } } } }) },
    { client: 'Windsurf', where: '~/.codeium/windsurf/mcp_config.json', text: json({ mcpServers: { [name]: { serverUrl: url, headers: { Authorization: authorization } } } }) },
    { client: 'Claude Code', where: 'a shell', text: `claude mcp add --transport http ${name} ${url} --header "Authorization: ${authorization}"` },
    { client: 'OpenAI Codex', where: '~/.codex/config.toml', text: `[mcp_servers.${name}]\nurl = "${url}"\nhttp_headers = { "Authorization" = "${authorization}" }` },
  ];
}
