/**
 * The status views inside the agent's host: the MCP Apps extension (`io.modelcontextprotocol/ui`,
 * spec 2026-01-26). get_service_health and get_incident_context name, in tools/list,
 * `_meta.ui.resourceUri` = APP_RESOURCE_URI; a host that supports MCP Apps reads that resource
 * (`text/html;profile=mcp-app`) and renders it in a sandboxed iframe, then hands it the tool's
 * result over postMessage (`ui/notifications/tool-result`); the view lays the result out. Hosts
 * without the extension ignore `_meta` and read the text as before; the results are unchanged.
 *
 * The view is one self-contained document: inline style and script, nothing fetched (its
 * `_meta.ui.csp` declares no domain, so a host's default CSP, which blocks every network origin,
 * is all it needs). Its script speaks the View side of the extension's protocol itself (ui/initialize,
 * ui/notifications/initialized, tool-input, tool-result, size-changed, ui/resource-teardown) instead
 * of bundling the official App class from @modelcontextprotocol/ext-apps: that class comes with
 * the MCP SDK and zod (about 540 KB), for a view that only listens. The official package is used
 * by the tests, as the host (AppBridge) in Chromium.
 *
 * Reading the resource needs READ, as the tools it shows do.
 */
import { AgentError } from '../shared/agent-error.js';
import type { CallerIdentity } from './tool-definition.js';

export const MCP_APP_EXTENSION = 'io.modelcontextprotocol/ui';
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';
export const APP_RESOURCE_URI = 'ui://svc/status-view.html';
/** The tools whose results the view lays out. */
export const APP_TOOLS: ReadonlySet<string> = new Set(['get_service_health', 'get_incident_context']);

/** What the resource asks of the host: no network origin at all, and a border around it. */
const RESOURCE_META = { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } };

/** The `_meta` a tool's tools/list entry carries, when it has the view. */
export function appToolMeta(tool: string): { ui: { resourceUri: string } } | undefined {
  return APP_TOOLS.has(tool) ? { ui: { resourceUri: APP_RESOURCE_URI } } : undefined;
}

export function appResources(caller: CallerIdentity | undefined) {
  if (!caller?.permissions.has('READ')) return [];
  return [{ uri: APP_RESOURCE_URI, name: 'svc-status-view', title: 'Service health and incident view', mimeType: MCP_APP_MIME_TYPE, _meta: RESOURCE_META }];
}

/** resources/read of the view; an AgentError for another URI or a caller without READ. */
export function readAppResource(uri: string, caller: CallerIdentity | undefined) {
  if (uri !== APP_RESOURCE_URI) throw new AgentError(`unknown resource; this server has ${APP_RESOURCE_URI}`);
  if (!caller?.permissions.has('READ')) throw new AgentError(`${APP_RESOURCE_URI} shows what READ tools answer; role "${caller?.role ?? 'none'}" grants no READ`);
  return { contents: [{ uri, mimeType: MCP_APP_MIME_TYPE, text: VIEW_HTML, _meta: RESOURCE_META }] };
}

const VIEW_SCRIPT = `(() => {
  let nextId = 1;
  const send = (message) => window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*');
  const root = document.getElementById('view');
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
  const resize = () => send({ method: 'ui/notifications/size-changed', params: { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight } });
  function render(result) {
    root.replaceChildren();
    if (result.isError) root.append(el('p', 'The tool answered an error:', 'error'));
    const text = (result.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\\n');
    const blocks = text.split(/\\n\\s*\\n/);
    blocks.forEach((block, i) => {
      const lines = block.split('\\n');
      const head = lines[0];
      const status = /STATUS: (HEALTHY|DEGRADED|CRITICAL)/.exec(head);
      const section = el('section');
      section.append(el(i === 0 ? 'h1' : 'h2', head, status ? status[1] : undefined));
      if (lines.length > 1) section.append(el('pre', lines.slice(1).map((l) => l.replace(/^ {2}/, '')).join('\\n')));
      root.append(section);
    });
    resize();
  }
  window.addEventListener('message', (event) => {
    if (event.source !== window.parent) return;
    const m = event.data;
    if (!m || m.jsonrpc !== '2.0') return;
    if (m.method === 'ui/notifications/tool-result') render(m.params || {});
    else if (m.method === 'ui/notifications/tool-input') root.dataset.arguments = JSON.stringify((m.params && m.params.arguments) || {});
    else if (m.method === 'ui/resource-teardown' && m.id !== undefined) send({ id: m.id, result: {} });
    else if (m.method !== undefined && m.id !== undefined) send({ id: m.id, error: { code: -32601, message: 'not supported by this view' } });
    else if (m.id === 1 && m.result) send({ method: 'ui/notifications/initialized', params: {} });
  });
  send({ id: nextId++, method: 'ui/initialize', params: { appInfo: { name: 'svc-status-view', version: '1' }, appCapabilities: {}, protocolVersion: '2026-01-26' } });
})();`;

const VIEW_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Service status</title>
<style>
:root{color-scheme:light dark}body{margin:0;padding:.5rem 1rem;font:14px/1.4 system-ui,sans-serif}
h1{font-size:1.1rem}h2{font-size:1rem;margin:.8rem 0 .2rem}pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere;font:12px/1.4 ui-monospace,monospace}
.HEALTHY{color:#1a7f37}.DEGRADED{color:#8a5a00}.CRITICAL{color:#b3261e}.error{color:#b3261e}
</style></head>
<body><main id="view"><p>Waiting for the tool's result.</p></main><script>${VIEW_SCRIPT}</script></body></html>`;
