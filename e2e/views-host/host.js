// The test's MCP Apps host: the official AppBridge between a view and the
// MCP client, which lives in the test (Node) and is reached through
// window.mcp (puppeteer's exposeFunction). The view runs in the sandbox
// proxy's inner frame, on another origin.
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';

const palettes = {
  light: { '--color-background-primary': '#ffffff', '--color-background-secondary': '#f3f4f6', '--color-text-primary': '#111827',
    '--color-text-secondary': '#4b5563', '--color-border-primary': '#d1d5db', '--font-sans': 'DejaVu Sans, sans-serif' },
  dark: { '--color-background-primary': '#17171c', '--color-background-secondary': '#24242b', '--color-text-primary': '#f3f4f6',
    '--color-text-secondary': '#a1a1aa', '--color-border-primary': '#3f3f46', '--font-sans': 'DejaVu Sans, sans-serif' },
};

// open runs a tool as a host does for a person: its definition names its
// view, the view is read and shown, then gets the call's input and result.
// It resolves with the view's state once the view initialized.
window.openView = async ({ tool, args, theme, locale, sandboxURL, result: given }) => {
  document.body.className = theme;
  const tools = await window.mcp('tools/list', {});
  const def = tools.tools.find((t) => t.name === tool);
  const uri = getToolUiResourceUri(def);
  const read = await window.mcp('resources/read', { uri });
  const content = read.contents[0];
  const ui = content._meta?.ui ?? {};
  const hostContext = { theme, locale, styles: { variables: palettes[theme] }, displayMode: 'inline', platform: 'web',
    toolInfo: { tool: def }, containerDimensions: { maxHeight: 2000, width: 760 } };
  const bridge = new AppBridge(null, { name: 'vitrine-e2e-host', version: '1.0.0' },
    { serverTools: {}, serverResources: {}, sandbox: { csp: ui.csp } }, { hostContext });
  bridge.oncalltool = (params) => window.mcp('tools/call', params);
  bridge.onreadresource = (params) => window.mcp('resources/read', params);
  bridge.onsizechange = ({ height }) => { if (height) iframe.style.height = Math.min(height + 2, 2000) + 'px'; };
  const iframe = document.createElement('iframe');
  iframe.src = `${sandboxURL}?csp=${encodeURIComponent(JSON.stringify(ui.csp ?? {}))}`;
  iframe.sandbox = 'allow-scripts allow-same-origin';
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  const sandboxReady = new Promise((resolve) => { bridge.onsandboxready = resolve; });
  // Listening before the proxy loads: it says it is ready as soon as it runs.
  document.getElementById('slot').replaceChildren(iframe);
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  await sandboxReady;
  await bridge.sendSandboxResourceReady({ html: content.text, csp: ui.csp });
  await initialized;
  // A given result stands in for the call's (the shapes of a model not yet served).
  const result = given ?? await window.mcp('tools/call', { name: tool, arguments: args });
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  window.bridge = bridge;
  return { uri, mimeType: content.mimeType, meta: content._meta, result };
};

window.setTheme = async (theme, locale) => {
  document.body.className = theme;
  await window.bridge.sendHostContextChange({ theme, locale, styles: { variables: palettes[theme] } });
};
