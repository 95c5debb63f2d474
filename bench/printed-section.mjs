// What a benchmark prints, kept for its section of docs/performance.md (bench/performance-doc.mjs).

/** `say` prints a line and keeps it; `write` replaces the script's section with the lines kept. */
export function printedSection(script, title) {
  const lines = [];
  return {
    say(line) {
      console.log(line);
      lines.push(line);
    },
    /** `fenced`: the lines as printed, in a code block; else they are Markdown themselves. */
    async write({ fenced = true } = {}) {
      // Loaded only now: loading it pins this process to cores (bench/paired-servers.mjs), which must not change what was measured.
      const { machine, writeSection } = await import('./performance-doc.mjs');
      const body = lines.join('\n').trim();
      writeSection(script, `## ${title} (${script})\n\n- Measured: ${machine()}.\n\n${fenced ? `\`\`\`\n${body}\n\`\`\`` : body}`);
    },
  };
}
