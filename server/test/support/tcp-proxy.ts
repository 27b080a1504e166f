/**
 * A TCP proxy that can cut its connections and refuse new ones (a database or Redis going away), or keep
 * them open while nothing comes back (one that hangs), on demand. The test package's suites use it too
 * (test/src/tcp-proxy.ts re-exports it).
 */
import net from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Cuts every connection and refuses new ones until `up()`. */
  down(): void;
  /** Keeps connections open but passes nothing back from the target until `up()`. */
  stall(): void;
  up(): void;
  close(): Promise<void>;
}

export function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let state: 'up' | 'down' | 'stalled' = 'up';
  const server = net.createServer((client) => {
    if (state === 'down') return client.destroy();
    const upstream = net.connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      // Held back while stalled; passed on, in order, once up again.
      if (state === 'stalled') held.push([client, chunk]);
      else client.write(chunk);
    });
    upstream.on('end', () => client.end());
  });
  let held: [net.Socket, Buffer][] = [];
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : 0,
        down() {
          state = 'down';
          held = [];
          for (const socket of sockets) socket.destroy();
        },
        stall() {
          state = 'stalled';
        },
        up() {
          state = 'up';
          for (const [client, chunk] of held.splice(0)) if (!client.destroyed) client.write(chunk);
        },
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
