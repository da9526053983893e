// A loopback TCP proxy a test or the chaos run can cut and restore, to make a real server briefly unreachable,
// or stall: alive but mute, in both directions, for every connection. To stall one
// apiserver call among others, see test/support/http-apiserver-proxy.ts (the kube client keeps its
// connections, so a call is not a connection).
import { createServer, connect, type Server, type Socket } from 'node:net';

export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  private stalled = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(port = 0): Promise<number> {
    this.server = createServer((client) => {
      this.sockets.add(client);
      client.on('error', () => client.destroy()).on('close', () => this.sockets.delete(client));
      // Stalled: the connection is accepted and then nothing, in either direction.
      if (this.stalled) {
        client.pause();
        return;
      }
      this.forward(client);
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    const addr = this.server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : port;
    return this.port;
  }

  /**
   * Keeps accepting connections and keeps the open ones open, but carries nothing more either
   * way: the server behind looks alive and never answers (a hung apiserver, a black-holed
   * network). New connections are accepted and never answered either.
   */
  stall(): void {
    this.stalled = true;
    for (const { client, upstream } of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  /** Refuses new connections and cuts the open ones. */
  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    this.pairs.clear();
    this.stalled = false;
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** Listens again on the same port. */
  async restore(): Promise<void> {
    await this.start(this.port);
  }

  private forward(client: Socket): void {
    const upstream = connect(this.targetPort, this.targetHost);
    this.sockets.add(upstream);
    const pair = { client, upstream };
    this.pairs.add(pair);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
      this.pairs.delete(pair);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  }
}
