/**
 * The playbooks as graphs (successors exist, every step reachable, every path ends, fields match
 * the step kind, approvals match the built-in actions), their selection and their text layout
 * (get_playbook's, src/mcp/tools/get-playbook.ts).
 */
import { describe, expect, it } from 'vitest';
import { INCIDENT_PATTERNS } from '../../src/analysis/pattern-matcher.js';
import { PLAYBOOKS, type Playbook, type PlaybookStep, type PlaybookSuccessor, selectPlaybook } from '../../src/incidents/playbooks.js';
import { BUILT_IN_ACTIONS } from '../../src/incidents/remediation-kinds.js';
import { formatPlaybook } from '../../src/mcp/tools/get-playbook.js';

function successorsOf(step: PlaybookStep): PlaybookSuccessor[] {
  return Object.values(step.next).filter((next): next is PlaybookSuccessor => next !== undefined);
}

function playbookFor(pattern: string): Playbook {
  const found = PLAYBOOKS.find((p) => p.triggerPatterns.some((t) => t === pattern));
  if (!found) throw new Error(`no playbook for ${pattern}`);
  return found;
}

const generic = PLAYBOOKS.find((p) => p.triggerPatterns.length === 0)!;

describe('the playbook set', () => {
  it('has one playbook per incident pattern plus one generic playbook', () => {
    expect(PLAYBOOKS).toHaveLength(INCIDENT_PATTERNS.length + 1);
    for (const pattern of INCIDENT_PATTERNS) expect(PLAYBOOKS.filter((p) => p.triggerPatterns.includes(pattern))).toHaveLength(1);
    expect(PLAYBOOKS.filter((p) => p.triggerPatterns.length === 0)).toHaveLength(1);
    expect(new Set(PLAYBOOKS.map((p) => p.name)).size).toBe(PLAYBOOKS.length);
  });
});

describe.each(PLAYBOOKS.map((p) => [p.name, p] as const))('playbook %s', (_name, playbook) => {
  const indexes = new Set(playbook.steps.map((s) => s.index));

  it('has 4 to 8 steps numbered 1..n in order', () => {
    expect(playbook.steps.length).toBeGreaterThanOrEqual(4);
    expect(playbook.steps.length).toBeLessThanOrEqual(8);
    expect(playbook.steps.map((s) => s.index)).toEqual(playbook.steps.map((_, i) => i + 1));
  });

  it('names only existing steps or END as successors', () => {
    for (const step of playbook.steps) {
      for (const next of successorsOf(step)) {
        if (next !== 'END') expect(indexes, `step ${step.index} -> ${next}`).toContain(next);
      }
    }
  });

  it('reaches every step from step 1', () => {
    const seen = new Set<number>([1]);
    const queue = [1];
    for (let index = queue.shift(); index !== undefined; index = queue.shift()) {
      const step = playbook.steps.find((s) => s.index === index)!;
      for (const next of successorsOf(step)) {
        if (next !== 'END' && !seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    expect([...seen].sort((a, b) => a - b)).toEqual([...indexes].sort((a, b) => a - b));
  });

  it('reaches END from every step', () => {
    const ends = new Set<number>();
    let grew = true;
    while (grew) {
      grew = false;
      for (const step of playbook.steps) {
        if (ends.has(step.index)) continue;
        if (successorsOf(step).some((next) => next === 'END' || ends.has(next))) {
          ends.add(step.index);
          grew = true;
        }
      }
    }
    expect(ends.size).toBe(playbook.steps.length);
  });

  it('gives each kind its own successor keys and fields', () => {
    for (const step of playbook.steps) {
      const keys = Object.keys(step.next).sort();
      if (step.kind === 'DECISION') expect(keys).toEqual(['no', 'yes']);
      else expect(keys).toEqual(['failure', 'success']);
      if (step.kind === 'ACTION') {
        expect(step.condition).toBeUndefined();
        expect(Object.keys(BUILT_IN_ACTIONS)).toContain(step.action);
      } else {
        expect(step.action).toBeUndefined();
        expect(step.condition?.trim()).toBeTruthy();
      }
      expect(step.description.trim()).toBeTruthy();
    }
  });

  it('requires approval exactly for actions whose kind requires it', () => {
    for (const step of playbook.steps) {
      const expected = step.kind === 'ACTION' && BUILT_IN_ACTIONS[step.action!].requiresApproval;
      expect(step.requiresApproval, `step ${step.index}`).toBe(expected);
    }
  });

  it('formats the layout elements in order', () => {
    const operation = 'GET /orders/{id}';
    const lines = formatPlaybook(playbook, operation).split('\n');
    const expected: string[] = [`PLAYBOOK ${playbook.name} for ${operation}`, `Trigger Patterns: ${playbook.triggerPatterns.length ? playbook.triggerPatterns.join(', ') : 'any'}`, 'Steps:'];
    for (const step of playbook.steps) {
      expected.push(`${step.index}. [${step.kind}] ${step.description}`);
      if (step.kind === 'ACTION') expected.push(`Action: ${step.action}${step.requiresApproval ? ' REQUIRES APPROVAL' : ''}`);
      else expected.push(`Condition: ${step.condition}`);
      if (step.kind === 'DECISION') expected.push(`If yes -> ${step.next.yes}, if no -> ${step.next.no}`);
      else expected.push(`On success -> ${step.next.success}, on failure -> ${step.next.failure}`);
    }
    // Each element starts a line of its own (after indentation), after the one before it.
    let at = -1;
    for (const element of expected) {
      const found = lines.findIndex((line, i) => i > at && line.trim() === element);
      expect(found, `"${element}" after line ${at}`).toBeGreaterThan(at);
      at = found;
    }
    expect(lines.filter((line) => line.includes('REQUIRES APPROVAL'))).toHaveLength(playbook.steps.filter((s) => s.requiresApproval).length);
  });
});

describe('formatPlaybook', () => {
  it('leaves out the operation when none is given', () => {
    const playbook = playbookFor('cascade_failure');
    expect(formatPlaybook(playbook).split('\n')[0]).toBe(`PLAYBOOK ${playbook.name}`);
  });

  it('shows "any" as the trigger of the generic playbook', () => {
    expect(formatPlaybook(generic)).toContain('Trigger Patterns: any');
  });
});

describe('selectPlaybook', () => {
  it('prefers an explicit pattern over the operation patterns, in any case', () => {
    expect(selectPlaybook({ pattern: 'memory_leak', operationPatterns: ['cascade_failure'] })).toBe(playbookFor('memory_leak'));
    expect(selectPlaybook({ pattern: 'ERROR_RATE_SPIKE' })).toBe(playbookFor('error_rate_spike'));
    expect(selectPlaybook({ pattern: ' Cold_Start ' })).toBe(playbookFor('cold_start'));
  });

  it('takes the first of the operation patterns', () => {
    expect(selectPlaybook({ operationPatterns: ['thundering_herd', 'latency_degradation'] })).toBe(playbookFor('thundering_herd'));
    expect(selectPlaybook({ pattern: '', operationPatterns: ['latency_degradation'] })).toBe(playbookFor('latency_degradation'));
  });

  it('falls back to the generic playbook', () => {
    expect(selectPlaybook({})).toBe(generic);
    expect(selectPlaybook({ operationPatterns: [] })).toBe(generic);
  });

  it('rejects an unknown pattern, listing the accepted names', () => {
    expect(() => selectPlaybook({ pattern: 'disk_full' })).toThrow(Error);
    let message = '';
    try {
      selectPlaybook({ pattern: 'disk_full', operationPatterns: ['memory_leak'] });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('disk_full');
    for (const pattern of INCIDENT_PATTERNS) expect(message).toContain(pattern);
  });
});
