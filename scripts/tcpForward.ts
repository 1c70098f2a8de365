// A plain TCP forwarder: accepts on one address and pipes each connection to another, both
// ways, closing each side when the other closes. scripts/netns-cluster.sh uses it to let
// processes in network namespaces reach the Postgres and Redis of the host (which listen on
// its loopback) over the namespaces' links; the cluster tests use it the other way, to reach
// fronts and workers inside namespaces from the test process.
//
//   node dist/scripts/tcpForward.js LISTEN_HOST:PORT TARGET_HOST:PORT [...more pairs]
import net from 'node:net';
import { fileURLToPath } from 'node:url';

export interface Forwarder {
  port: number;
  close(): Promise<void>;
}

function splitAddress(text: string): { host: string; port: number } {
  const at = text.lastIndexOf(':');
  const port = Number(text.slice(at + 1));
  if (at <= 0 || !Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`not HOST:PORT: ${text}`);
  return { host: text.slice(0, at), port };
}

/** Listens on listenHost:listenPort (0 = any free port) and forwards to targetHost:targetPort. */
export function forward(listenHost: string, listenPort: number, targetHost: string, targetPort: number): Promise<Forwarder> {
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: targetHost, port: targetPort });
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
      open.add(a);
      a.setNoDelay(true);
      a.pipe(b);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        open.delete(a);
        b.destroy();
      });
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, listenHost, () => {
      server.off('error', reject);
      resolve({
        port: (server.address() as net.AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            for (const s of open) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

async function main(pairs: string[]): Promise<void> {
  if (pairs.length === 0 || pairs.length % 2 !== 0) throw new Error('usage: tcpForward LISTEN_HOST:PORT TARGET_HOST:PORT [...]');
  for (let i = 0; i < pairs.length; i += 2) {
    const from = splitAddress(pairs[i]!);
    const to = splitAddress(pairs[i + 1]!);
    await forward(from.host, from.port, to.host, to.port);
    process.stdout.write(`forwarding ${pairs[i]} -> ${pairs[i + 1]}\n`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`tcpForward: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
