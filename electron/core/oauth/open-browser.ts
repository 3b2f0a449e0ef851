import { spawn } from 'node:child_process';
import { authorizationUrlProblem } from '../../../shared/sign-in.ts';

/**
 * How a sign-in page reaches the person: their system browser, or, with SWITCHBOARD_SIGN_IN=fetch in
 * the environment (automated tests against authorization servers that approve at once), Switchboard
 * fetches the page itself and follows its redirects back to the loopback callback.
 */
export type SignInOpener = (url: URL) => Promise<boolean>;

export function signInOpener(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): SignInOpener {
  if (env.SWITCHBOARD_SIGN_IN === 'fetch') return followRedirects;
  return (url) => openInBrowser(url, env, platform);
}

/**
 * Opens `url` in the system browser; false when none could be opened (no desktop session, no opener,
 * or not a page Switchboard opens: shared/sign-in.ts), so the caller prints the address instead. The URL is one argument of a program run without a
 * shell: nothing in it is interpreted.
 */
export async function openInBrowser(
  url: URL,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Promise<boolean> {
  if (authorizationUrlProblem(url.href)) return false;
  const [command, ...args] =
    platform === 'darwin'
      ? ['open', url.href]
      : platform === 'win32'
        ? ['rundll32', 'url.dll,FileProtocolHandler', url.href]
        : ['xdg-open', url.href];
  if (platform !== 'darwin' && platform !== 'win32' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return false;
  return new Promise<boolean>((resolve) => {
    const child = spawn(command ?? 'xdg-open', args, { stdio: 'ignore', detached: true, env });
    const timer = setTimeout(() => {
      // Still running after a while: some openers wait for the browser. It did start.
      child.unref();
      resolve(true);
    }, 3_000);
    timer.unref();
    child.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}

/** SWITCHBOARD_SIGN_IN=fetch: what a browser would do on a page that approves at once. */
async function followRedirects(url: URL): Promise<boolean> {
  let next = url;
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(next, { redirect: 'manual' });
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      next = new URL(location, next);
      continue;
    }
    return response.ok;
  }
  return false;
}
