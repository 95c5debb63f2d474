// Load for the evaluation: open-loop (paced: requests leave on schedule whatever the answers, as
// users arrive) and closed-loop (clients that each wait for their answer, then think). Both count
// answers by status and can change their rate while running.
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function get(port, path) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
  });
}

export function newCounts() {
  return { sent: 0, ok: 0, failed: 0 };
}

/** `rate` requests a second, in 10 ms ticks; `setRate` changes it. */
export function openLoop(port, rate) {
  const counts = newCounts();
  let perTick = rate / 100;
  let owed = 0;
  let id = 0;
  const timer = setInterval(() => {
    owed += perTick;
    for (; owed >= 1; owed--) {
      counts.sent++;
      void get(port, `/orders/${id++ % 1000}`).then((status) => (status === 200 ? counts.ok++ : counts.failed++));
    }
  }, 10);
  return { counts, setRate: (next) => (perTick = next / 100), stop: () => clearInterval(timer) };
}

/** `clients` clients, each sending its next request `thinkMs` after its last answer. */
export function closedLoop(port, clients, thinkMs) {
  const counts = newCounts();
  let running = true;
  let id = 0;
  const client = async () => {
    while (running) {
      counts.sent++;
      const status = await get(port, `/orders/${id++ % 1000}`);
      if (status === 200) counts.ok++;
      else counts.failed++;
      await new Promise((resolve) => setTimeout(resolve, thinkMs));
    }
  };
  for (let i = 0; i < clients; i++) void client();
  return { counts, setRate: () => {}, stop: () => (running = false) };
}
