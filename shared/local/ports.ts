import { createServer } from 'node:net';

/** A free TCP port on loopback, chosen by the OS. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address) resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });

/**
 * Whether something already listens on `port`: tries to listen there (as the server that wants it
 * would) and lets go at once. Only "address in use" counts as taken; any other failure is thrown.
 */
export const portInUse = (port: number, host = '127.0.0.1'): Promise<boolean> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(true);
      else reject(error);
    });
    server.listen(port, host, () =>
      server.close(() => {
        resolve(false);
      }),
    );
  });

/** A port `npm start` needs, and the environment variable that moves it. */
export interface NeededPort {
  port: number;
  /** The environment variable that sets this port (PORT, EDGE_PORT, DYNAMODB_PORT). */
  setting: string;
  host?: string;
}

/** The one line `npm start` prints when a port it needs is taken. */
export const portInUseMessage = ({ port, setting }: NeededPort): string =>
  `Port ${port} is in use (another npm start?). Stop that process (e.g. \`lsof -i :${port}\` / \`fuser -k ${port}/tcp\`) or set ${setting}=<another port>.`;

/** The first of `ports` (0, any free port, is never taken) that something else listens on. */
export const firstPortInUse = async (ports: readonly NeededPort[]): Promise<NeededPort | undefined> => {
  for (const needed of ports) {
    if (needed.port !== 0 && (await portInUse(needed.port, needed.host))) return needed;
  }
  return undefined;
};

/** A start that failed because a port was taken (a race the check before starting could not see). */
export class PortInUseError extends Error {
  constructor(readonly needed: NeededPort) {
    super(portInUseMessage(needed));
    this.name = 'PortInUseError';
  }
}
