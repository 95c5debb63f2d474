/**
 * Core Web Vitals of the page, measured with PerformanceObserver as the web-vitals definitions
 * say: LCP (the last largest-contentful-paint before the first input), CLS (the largest session
 * window of layout shifts without recent input: gaps under 1 s, windows up to 5 s) and INP (the
 * slowest interaction, or the 98th percentile with 50 or more: per interaction, its longest event
 * duration). Read once, when the page is hidden.
 */

export interface Vitals {
  readonly lcpMs?: number;
  readonly cls?: number;
  readonly inpMs?: number;
}

type ShiftEntry = PerformanceEntry & { value: number; hadRecentInput: boolean };
type EventEntry = PerformanceEntry & { interactionId?: number };

/** Observes `type`; false when this browser cannot, and that vital stays unknown. */
function observe(type: string, callback: (entries: PerformanceEntry[]) => void, extra: Record<string, unknown> = {}): boolean {
  try {
    if (!PerformanceObserver.supportedEntryTypes?.includes(type)) return false;
    new PerformanceObserver((list) => callback(list.getEntries())).observe({ type, buffered: true, ...extra } as PerformanceObserverInit);
    return true;
  } catch {
    return false;
  }
}

export class WebVitals {
  private lcp: number | undefined;
  private lcpFinal = false;
  private cls = 0;
  private clsSeen = false;
  private window = { value: 0, first: 0, last: 0 };
  private readonly interactions = new Map<number, number>();

  start(): void {
    observe('largest-contentful-paint', (entries) => {
      if (!this.lcpFinal) this.lcp = entries.at(-1)!.startTime;
    });
    const finalise = (): void => {
      this.lcpFinal = true;
    };
    addEventListener('pointerdown', finalise, { once: true, capture: true });
    addEventListener('keydown', finalise, { once: true, capture: true });
    // Where layout shifts can be observed, none is a CLS of 0.
    this.clsSeen = observe('layout-shift', (entries) => {
      for (const entry of entries as ShiftEntry[]) {
        if (entry.hadRecentInput) continue;
        const w = this.window;
        if (w.value && entry.startTime - w.last < 1000 && entry.startTime - w.first < 5000) {
          w.value += entry.value;
          w.last = entry.startTime;
        } else this.window = { value: entry.value, first: entry.startTime, last: entry.startTime };
        this.cls = Math.max(this.cls, this.window.value);
      }
    });
    observe(
      'event',
      (entries) => {
        for (const entry of entries as EventEntry[]) {
          if (!entry.interactionId) continue;
          // Bounded: the 1000 first interactions of a page are plenty for a 98th percentile.
          if (this.interactions.size >= 1000 && !this.interactions.has(entry.interactionId)) continue;
          this.interactions.set(entry.interactionId, Math.max(this.interactions.get(entry.interactionId) ?? 0, entry.duration));
        }
      },
      { durationThreshold: 16 },
    );
  }

  read(): Vitals {
    const durations = [...this.interactions.values()].sort((a, b) => b - a);
    const inp = durations.length ? durations[Math.min(durations.length - 1, Math.floor(durations.length / 50))] : undefined;
    return { lcpMs: this.lcp, cls: this.clsSeen ? this.cls : undefined, inpMs: inp };
  }
}
