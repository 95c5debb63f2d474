/**
 * Line charts as inline SVG, drawn on the server: no script, nothing fetched, each with a title
 * and a text summary for screen readers. Missing points (minutes without traffic) break the line.
 */
import { type Html, html } from './html.js';

export interface ChartLine {
  readonly label: string;
  readonly values: readonly (number | undefined)[];
  /** A class of the stylesheet (its colour). */
  readonly tone: 'main' | 'bad';
}

const WIDTH = 300;
const HEIGHT = 60;

export function lineChart(title: string, lines: readonly ChartLine[], describe: (value: number) => string, fixedMax?: number): Html {
  const all = lines.flatMap((l) => l.values.filter((v): v is number => v !== undefined && Number.isFinite(v)));
  const max = fixedMax ?? Math.max(0, ...all);
  const scale = max > 0 ? max : 1;
  const paths = lines.map((line) => {
    const step = line.values.length > 1 ? WIDTH / (line.values.length - 1) : 0;
    let d = '';
    let drawing = false;
    line.values.forEach((value, i) => {
      if (value === undefined || !Number.isFinite(value)) {
        drawing = false;
        return;
      }
      const y = (HEIGHT - (value / scale) * HEIGHT).toFixed(1);
      // A point alone (a single minute with traffic) is drawn as a short dash.
      const alone = !drawing && (line.values[i + 1] === undefined || !Number.isFinite(line.values[i + 1]));
      d += drawing ? `L${(i * step).toFixed(1)} ${y}` : `M${Math.max(0, i * step - (alone ? 2 : 0)).toFixed(1)} ${y}${alone ? 'h4' : ''}`;
      drawing = true;
    });
    return html`<path class="line ${line.tone}" d="${d}"/>`;
  });
  const summary = lines.map((l) => `${l.label}: last ${describe(lastOf(l.values))}, highest ${describe(Math.max(0, ...l.values.filter((v): v is number => v !== undefined)))}`).join('; ');
  return html`<figure class="chart"><figcaption>${title} <span class="scale">(top ${describe(max)})</span></figcaption><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${`${title}: ${summary}`}">${paths}</svg></figure>`;
}

function lastOf(values: readonly (number | undefined)[]): number {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] !== undefined) return values[i]!;
  return 0;
}
