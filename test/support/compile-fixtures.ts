/** Vitest global setup: nothing to compile yet beyond `npm test`'s own tsc build. */
export default function setup(): void {}
