import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { defined } from './servers.ts';

const SCRIPT = fileURLToPath(new URL('../fixtures/fake-model.mjs', import.meta.url));

/** test/fixtures/fake-model.mjs on 127.0.0.1: the model real clients run one offline prompt against. */
export interface FakeModel {
  /** http://127.0.0.1:<port> (Anthropic and Gemini base URLs) */
  origin: string;
  /** origin + /v1 (OpenAI-compatible base URL) */
  url: string;
  stop(): void;
}

/** Starts the fake model, which asks for the echo tool with `probe`; resolves once it printed its port. */
export async function startFakeModel(probe: string): Promise<FakeModel> {
  const child = spawn(process.execPath, [SCRIPT, `--probe=${probe}`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve) =>
    createInterface({ input: defined(child.stdout, 'fake model stdout') }).once('line', resolve),
  );
  const origin = `http://127.0.0.1:${port.trim()}`;
  return { origin, url: `${origin}/v1`, stop: () => child.kill('SIGTERM') };
}

/**
 * Writes a config file naming the fake model as the OpenAI-compatible provider "fake" and the model
 * to use, in opencode's format (Kilo Code, an opencode fork, reads the same); the clients merge it
 * with the user's own config (OPENCODE_CONFIG, KILO_CONFIG).
 */
export function writeFakeModelProvider(path: string, modelUrl: string): void {
  writeFileSync(
    path,
    JSON.stringify({
      provider: {
        fake: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Fake',
          options: { baseURL: modelUrl, apiKey: 'fake' },
          models: { 'fake-model': { name: 'Fake', tool_call: true } },
        },
      },
      model: 'fake/fake-model',
    }),
  );
}
