import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useHeadless } from '../helpers/headless.ts';
import { launchChromium } from './browser.ts';

// Issue 32, item 1's residual: a program that held Switchboard's port while `serve` was down served
// the person's browser a page that registered a service worker for http://127.0.0.1:PORT. Once `serve`
// is back, that worker would go on answering the address in the person's browser, as them (the
// connection check cannot tell its requests from the real UI's). The browser checks the worker's
// script for an update at `serve`, which answers with a worker that removes itself. Debian's
// Chromium; the squatter is a plain HTTP server in this process (which user runs it does not matter
// to the browser).

const SQUATTED = 'SQUATTED BY WORKER';
const SQUATTER_PAGE = `<!doctype html><title>Switchboard</title><p>squatter</p>
<script>navigator.serviceWorker.register('/sw.js')</script>`;
const SQUATTER_WORKER = `
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => {
  if (event.request.mode === 'navigate')
    event.respondWith(new Response('<!doctype html><p>${SQUATTED}</p>', { headers: { 'content-type': 'text/html' } }));
});`;

const setup = useHeadless();
let browser: Browser;
let page: Page;
let squatter: Server;
let port: number;

beforeAll(async () => {
  squatter = createServer((req, res) => {
    const worker = req.url === '/sw.js';
    res.writeHead(200, { 'content-type': worker ? 'text/javascript' : 'text/html' });
    res.end(worker ? SQUATTER_WORKER : SQUATTER_PAGE);
  });
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  const address = squatter.address();
  port = typeof address === 'object' && address ? address.port : 0;
  browser = await launchChromium();
  page = await browser.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  squatter?.closeAllConnections();
  await new Promise((resolve) => squatter?.close(resolve));
});

const registrations = () =>
  page.evaluate('navigator.serviceWorker.getRegistrations().then((r) => r.length)') as Promise<number>;

describe("a squatter's service worker, once serve is back on the port", () => {
  it('is removed at its first update check, and the address shows Switchboard again', async () => {
    // While serve is down: the squatter's page registers its worker, which then answers every page.
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
    await page.goto(`http://127.0.0.1:${port}/servers`);
    expect(await page.textContent('body')).toContain(SQUATTED);

    // serve comes back on the same port.
    squatter.closeAllConnections();
    await new Promise((resolve) => squatter.close(resolve));
    await setup.start({ port });

    // The person opens the UI again: the worker answers this load, and the browser checks its script
    // at serve once the worker is idle (Chromium defers the check while it is busy).
    await page.goto(`http://127.0.0.1:${port}/`);
    expect(await page.textContent('body')).toContain(SQUATTED);
    for (let i = 0; i < 60 && (await registrations()) > 0; i++) await page.waitForTimeout(1_000);
    expect(await registrations()).toBe(0);
    // The page the worker held was reloaded from serve, and so is every later one.
    await page.goto(`http://127.0.0.1:${port}/servers`);
    expect(await page.textContent('body')).not.toContain(SQUATTED);
  }, 120_000);
});
