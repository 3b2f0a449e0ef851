import { describe, expect, it } from 'vitest';
import { LinkQueue } from '../../../electron/desktop/link-queue.ts';

describe('links that arrive before the core is up', () => {
  it('waits for ready, then handles them in arrival order', async () => {
    const queue = new LinkQueue();
    const handled: string[] = [];
    // macOS cold start: open-url fires before ready.
    queue.push('switchboard://install?name=a');
    queue.push('switchboard://open');
    expect(queue.pending).toBe(2);
    expect(handled).toEqual([]);
    queue.ready((link) => {
      handled.push(link);
    });
    await queue.idle();
    expect(handled).toEqual(['switchboard://install?name=a', 'switchboard://open']);
    expect(queue.pending).toBe(0);
  });

  it('handles links at once after ready, one at a time, and goes on after a failure', async () => {
    const queue = new LinkQueue();
    const events: string[] = [];
    queue.ready(async (link) => {
      events.push(`start ${link}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      events.push(`end ${link}`);
      if (link === 'a') throw new Error('bad link');
    });
    queue.push('a');
    queue.push('b');
    await queue.idle();
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b']);
  });

  it('drops links beyond a limit while waiting (a page firing links in a loop)', () => {
    const queue = new LinkQueue();
    for (let i = 0; i < LinkQueue.MAX_PENDING; i++) expect(queue.push(`l${i}`)).toBe(true);
    expect(queue.push('one too many')).toBe(false);
    expect(queue.pending).toBe(LinkQueue.MAX_PENDING);
  });
});
