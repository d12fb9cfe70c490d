import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GitHubStandin } from '../github-standin/index.js';

/** GitHub's side of smart HTTP: only a token the stand-in minted for the repository (contents) may clone. */
export async function startGitAuthProxy(
  standin: GitHubStandin,
  target: string,
): Promise<{ url: string; server: Server; denied: { path: string; credential: boolean }[]; served: number }> {
  const denied: { path: string; credential: boolean }[] = [];
  let served = 0;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const fullName = /^\/([^/]+)\/([^/]+?)(?:\.git)?\//.exec(path)?.slice(1, 3).join('/') ?? '';
    const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const [user, token] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    const access = path.endsWith('git-receive-pack') || req.url?.includes('service=git-receive-pack') ? 'write' : 'read';
    if (user !== 'x-access-token' || !token || !standin.authorizeGit(token, fullName, access)) {
      denied.push({ path, credential: Boolean(token) });
      req.resume().on('end', () => res.writeHead(401, { 'www-authenticate': 'Basic realm="GitHub"' }).end());
      return;
    }
    const headers = { ...req.headers };
    delete headers.authorization;
    delete headers.host;
    served += 1;
    const upstream = httpRequest(`${target}${req.url ?? '/'}`, { method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    denied,
    get served() {
      return served;
    },
  };
}
