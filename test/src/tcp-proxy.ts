/** A TCP proxy that can cut its connections and refuse new ones: a database going away, on demand. */
import net from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Cuts every connection and refuses new ones until `up()`. */
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let isUp = true;
  const server = net.createServer((client) => {
    if (!isUp) return client.destroy();
    const upstream = net.connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : 0,
        down() {
          isUp = false;
          for (const socket of sockets) socket.destroy();
        },
        up() {
          isUp = true;
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
