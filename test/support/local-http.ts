import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request from a chosen local address (127.0.0.0/8 is all loopback), which fetch cannot pick. */
export function from(
  localAddress: string,
  url: string,
  options: { method?: string; headers?: Record<string, string>; form?: Record<string, string> } = {},
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  const target = new URL(url);
  const body = options.form ? new URLSearchParams(options.form).toString() : '';
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? (options.form ? 'POST' : 'GET'),
        localAddress,
        headers: {
          ...(options.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function serveOn(
  handler: (req: never, res: never) => unknown,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => void handler(req as never, res as never));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

export function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
