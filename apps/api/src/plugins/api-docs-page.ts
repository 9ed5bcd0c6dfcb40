// The API docs page at /docs: every operation of the OpenAPI document (method, path, summary,
// description, parameters, answers) as one static page of about 20 kB compressed, where
// swagger-ui's page weighs about 600 kB; swagger-ui stays at /docs/try for trying requests.

/** The parts of an OpenAPI 3 document the page reads (the rest is left to /docs/json). */
interface Doc {
  info?: { title?: string; description?: string };
  paths?: Record<string, Record<string, Operation>>;
}
interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: {
    name: string;
    in: string;
    required?: boolean;
    description?: string;
    schema?: Schema;
  }[];
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, { description?: string }>;
}
interface Schema {
  type?: string | string[];
  enum?: unknown[];
  format?: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[c]};`,
  );

/** Markdown's `code` spans as <code>; everything else as text. */
const prose = (s: string) =>
  escapeHtml(s).replace(/`([^`]+)`/g, (_m, code: string) => `<code>${code}</code>`);

const typeOf = (s: Schema | undefined) => {
  if (!s) return '';
  if (s.enum) return s.enum.map(String).join(' | ');
  const t = Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? '');
  return s.format ? `${t} (${s.format})` : t;
};

const anchor = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-');

function operationHtml(path: string, method: string, op: Operation): string {
  const params = (op.parameters ?? [])
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(p.name)}</code>${p.required ? ' *' : ''}</td><td>${escapeHtml(p.in)}</td><td>${escapeHtml(typeOf(p.schema))}</td><td>${prose(p.description ?? '')}</td></tr>`,
    )
    .join('');
  const body = op.requestBody?.content
    ? `<p><b>Body</b>: ${Object.keys(op.requestBody.content)
        .map((t) => `<code>${escapeHtml(t)}</code>`)
        .join(', ')}</p>`
    : '';
  const answers = Object.entries(op.responses ?? {})
    .map(([code, r]) =>
      r.description && r.description !== 'Default Response'
        ? `<code>${escapeHtml(code)}</code> ${prose(r.description)}`
        : `<code>${escapeHtml(code)}</code>`,
    )
    .join(' · ');
  return `<details class="op" id="${anchor(`${method}-${path}`)}"><summary><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code> <span class="s">${prose(op.summary ?? '')}</span></summary>${
    op.description ? `<p>${prose(op.description)}</p>` : ''
  }${params ? `<table><thead><tr><th>Parameter</th><th>In</th><th>Type</th><th>Meaning</th></tr></thead><tbody>${params}</tbody></table>` : ''}${body}${answers ? `<p><b>Answers</b>: ${answers}</p>` : ''}</details>`;
}

export function apiDocsHtml(doc: Doc): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationHtml(path, method, op)]);
    }
  }
  const tags = [...byTag.keys()];
  const title = escapeHtml(doc.info?.title ?? 'API');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2433;background:#f6f7f9}
header,main{max-width:1100px;margin:0 auto;padding:0 20px}
header{padding-top:16px}h1{font-size:24px;margin:8px 0}h2{font-size:18px;margin:24px 0 8px;text-transform:capitalize}
nav a{margin-right:12px}a{color:#2f5fd0}
.op{background:#fff;border:1px solid #dde1e8;border-radius:6px;margin:6px 0;padding:0 12px}
.op summary{cursor:pointer;padding:8px 0}.op[open]{padding-bottom:8px}
.m{display:inline-block;min-width:56px;font:600 12px/20px monospace;text-align:center;border-radius:4px;color:#fff;background:#5b6475}
.m.get{background:#2f6fb0}.m.post{background:#24855b}.m.patch,.m.put{background:#9a6a00}.m.delete{background:#b0342f}
.s{color:#4a5263}code{font:13px monospace;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-size:14px}th,td{text-align:left;vertical-align:top;padding:4px 8px;border-top:1px solid #e6e9ee}
</style></head>
<body><header><h1>${title}</h1>${doc.info?.description ? `<p>${prose(doc.info.description)}</p>` : ''}
<p>Writes take <code>Authorization: Bearer &lt;token&gt;</code>; parameters marked * are required. The whole document: <a href="/docs/json">OpenAPI JSON</a>. To send requests from the browser: <a href="/docs/try">Swagger UI</a> (about 600 kB).</p>
<nav aria-label="Groups">${tags.map((t) => `<a href="#${anchor(t)}">${escapeHtml(t)}</a>`).join(' ')}</nav></header>
<main>${tags.map((t) => `<section id="${anchor(t)}"><h2>${escapeHtml(t)}</h2>${(byTag.get(t) ?? []).join('')}</section>`).join('')}</main>
</body></html>`;
}
