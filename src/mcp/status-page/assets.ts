/**
 * The status page's stylesheet and script, served by svc itself (`/status-page.css`,
 * `/status-page.js`) so the Content-Security-Policy allows no inline code and nothing from
 * another origin. The script refreshes `main` every REFRESH_MS while the tab is visible, and
 * stops while it is hidden; it leaves `main` alone while a form in it has the focus.
 */
export const REFRESH_MS = 5000;

export const STYLESHEET = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#57606a;--line:#d0d7de;--main:#0b5cad;--bad:#b3261e;--ok:#1a7f37;--warn:#8a5a00}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9da7b3;--line:#30363d;--main:#6cb6ff;--bad:#ff7b72;--ok:#56d364;--warn:#e3b341}}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:.5rem;padding:.5rem 1rem;border-bottom:1px solid var(--line)}
header .service{font-weight:600;margin:0}
.who{display:flex;gap:.5rem;align-items:center;margin:0}
main{padding:0 1rem 2rem;max-width:1100px;margin:0 auto}
section{margin-top:1.5rem}
h1{font-size:1.4rem}h2{font-size:1.15rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}h3{font-size:1rem}h4{font-size:.95rem;margin:.8rem 0 .3rem}
.muted{color:var(--muted)}
.badge{display:inline-block;padding:0 .5rem;border-radius:1rem;border:1px solid currentColor;font-size:.85rem}
.HEALTHY{color:var(--ok)}.DEGRADED{color:var(--warn)}.CRITICAL{color:var(--bad)}
.notice{padding:.5rem;border-left:4px solid var(--main)}.notice.bad{border-color:var(--bad)}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
tbody th{font-weight:500;word-break:break-all}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .8rem;margin:.5rem 0}dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
article{border:1px solid var(--line);border-radius:6px;padding:.5rem 1rem;margin:.8rem 0}
.timeline{padding-left:1.2rem}.timeline li{overflow-wrap:anywhere}.timeline .cause{font-weight:600}.timeline .action{color:var(--main)}.timeline .refused,.timeline .failed{color:var(--bad)}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:1rem}
.chart{margin:0}.chart figcaption{font-size:.85rem;color:var(--muted)}
.chart svg{width:100%;height:60px;border-bottom:1px solid var(--line)}
.line{fill:none;stroke-width:1.5;vector-effect:non-scaling-stroke}.line.main{stroke:var(--main)}.line.bad{stroke:var(--bad)}
form.decide{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}form.decide label{flex-basis:100%}form.decide input[name=reason]{flex:1 1 14rem}
input,button{font:inherit;padding:.35rem .6rem;border:1px solid var(--line);border-radius:4px;background:var(--bg);color:var(--fg)}
button{background:var(--main);color:#fff;border-color:var(--main);cursor:pointer}button.secondary{background:var(--bg);color:var(--fg);border-color:var(--line)}
.who button{background:var(--bg);color:var(--fg);border-color:var(--line)}
.sign-in{max-width:28rem}.sign-in form{display:flex;flex-direction:column;gap:.5rem}
a{color:var(--main)}
code{font-size:.9em}
`;

export const SCRIPT = `(() => {
  let timer;
  const schedule = () => {
    clearTimeout(timer);
    if (!document.hidden) timer = setTimeout(refresh, ${REFRESH_MS});
  };
  async function refresh() {
    try {
      const res = await fetch('/?fragment=main', { credentials: 'same-origin', cache: 'no-store' });
      if (res.status === 401) return location.assign('/');
      const main = document.getElementById('main');
      if (res.ok && main && !main.contains(document.activeElement && document.activeElement.closest('form'))) {
        const next = new DOMParser().parseFromString(await res.text(), 'text/html').getElementById('main');
        if (next) main.replaceWith(next);
      }
    } catch {}
    schedule();
  }
  document.addEventListener('visibilitychange', () => (document.hidden ? clearTimeout(timer) : refresh()));
  schedule();
})();
`;
