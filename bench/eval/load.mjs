// Load for the evaluation: open-loop (paced: requests leave on schedule whatever the answers, as
// users arrive) and closed-loop (clients that each wait for their answer, then think; one client
// with no think time is a sequential client). Both count answers by status, time them on the
// client, and can change their rate while running. The open loop also counts the requests it sent
// late (more than LATE_MS behind their schedule, its own event loop being behind), so a rate the
// generator could not keep shows in the figures instead of passing for the rate asked.
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
/** An open-loop request sent this much after its scheduled time counts as late. */
export const LATE_MS = 25;
/** Latencies kept per phase (a uniform sample beyond that). */
const KEPT = 50_000;

function get(port, path) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
  });
}

/** Counts of one phase (before the fault, after it; the first phase is named by the caller): sent, answered ok, failed, late, and latencies. */
function newPhase(name) {
  return { name, startedAt: Date.now(), endedAt: undefined, sent: 0, ok: 0, failed: 0, late: 0, unanswered: 0, latencies: [], answered: 0 };
}

function percentile(sorted, q) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : Number.NaN;
}

/** Sent, failed, late and the client's p50/p99 of one phase, with the rate achieved. */
export function phaseSummary(phase) {
  const seconds = ((phase.endedAt ?? Date.now()) - phase.startedAt) / 1000;
  const sorted = [...phase.latencies].sort((a, b) => a - b);
  return {
    name: phase.name,
    seconds,
    sent: phase.sent,
    ok: phase.ok,
    failed: phase.failed,
    late: phase.late,
    answered: phase.answered,
    unanswered: phase.sent - phase.ok - phase.failed,
    rate: seconds > 0 ? phase.sent / seconds : 0,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
  };
}

/** Shared bookkeeping: phases, and the answer of one request counted in the phase it was sent in. */
function tracker(first) {
  const phases = [newPhase(first)];
  const current = () => phases[phases.length - 1];
  return {
    phases,
    /** Starts a new phase (the fault's onset): later requests count there. */
    mark(name) {
      current().endedAt = Date.now();
      phases.push(newPhase(name));
    },
    send(port, path, late) {
      const phase = current();
      phase.sent++;
      if (late) phase.late++;
      const t0 = performance.now();
      return get(port, path).then((status) => {
        const ms = performance.now() - t0;
        if (status === 200) phase.ok++;
        else phase.failed++;
        phase.answered++;
        if (phase.latencies.length < KEPT) phase.latencies.push(ms);
        else {
          const i = Math.floor(Math.random() * phase.answered);
          if (i < KEPT) phase.latencies[i] = ms;
        }
        return status;
      });
    },
    end() {
      current().endedAt = Date.now();
    },
  };
}

/**
 * `rate` requests a second, each on its own schedule (request i leaves at start + i/rate, the
 * schedule restarting at each `setRate`); a 5 ms timer sends every request that is due.
 */
export function openLoop(port, rate, phase = 'before') {
  const t = tracker(phase);
  let perMs = rate / 1000;
  let scheduleStart = performance.now();
  let sentOnSchedule = 0;
  let id = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    // Request i is due at scheduleStart + i / perMs: the first at once.
    const due = Math.floor((now - scheduleStart) * perMs) + 1;
    for (; sentOnSchedule < due; sentOnSchedule++) {
      const scheduled = scheduleStart + sentOnSchedule / perMs;
      void t.send(port, `/orders/${id++ % 1000}`, now - scheduled > LATE_MS);
    }
  }, 5);
  return {
    phases: t.phases,
    mark: t.mark,
    rate: () => perMs * 1000,
    setRate: (next) => {
      perMs = next / 1000;
      scheduleStart = performance.now();
      sentOnSchedule = 0;
    },
    stop: () => {
      clearInterval(timer);
      t.end();
    },
  };
}

/** `clients` clients, each sending its next request `thinkMs` after its last answer (1 client, 0 ms: sequential). */
export function closedLoop(port, clients, thinkMs, phase = 'before') {
  const t = tracker(phase);
  let running = true;
  let id = 0;
  const client = async () => {
    while (running) {
      await t.send(port, `/orders/${id++ % 1000}`, false);
      if (thinkMs > 0) await new Promise((resolve) => setTimeout(resolve, thinkMs));
      else await new Promise((resolve) => setImmediate(resolve));
    }
  };
  for (let i = 0; i < clients; i++) void client();
  return {
    phases: t.phases,
    mark: t.mark,
    rate: () => undefined,
    setRate: () => {},
    stop: () => {
      running = false;
      t.end();
    },
  };
}
