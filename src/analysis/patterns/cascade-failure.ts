/**
 * cascade_failure: a failing span while `dependencyCount` or more distinct dependencies failed
 * within `windowMs`. The failing dependencies are counted only for failing spans.
 */
import { BoundedMap } from '../bounded-map.js';
import type { PatternContext, PatternDetector } from './pattern-detector.js';

export interface CascadeFailureOptions {
  readonly dependencyCount: number;
  readonly windowMs: number;
  readonly maxDependencies: number;
}

export class CascadeFailureDetector implements PatternDetector {
  readonly pattern = 'cascade_failure' as const;
  private readonly lastFailure: BoundedMap<string, { at: number }>;

  constructor(private readonly options: CascadeFailureOptions) {
    this.lastFailure = new BoundedMap(options.maxDependencies, () => ({ at: 0 }));
  }

  recordDependencyError(dependency: string, nowMs: number): void {
    const entry = this.lastFailure.getOrCreate(dependency);
    if (entry) entry.at = nowMs;
  }

  /** Dependencies that failed within the window. */
  failingDependencies(nowMs: number): number {
    let failing = 0;
    for (const [, entry] of this.lastFailure) if (nowMs - entry.at <= this.options.windowMs) failing++;
    return failing;
  }

  detect(context: PatternContext): boolean {
    return context.isError && this.failingDependencies(context.nowMs) >= this.options.dependencyCount;
  }
}
