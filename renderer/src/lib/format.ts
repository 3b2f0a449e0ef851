import { displayMessage } from '../../../shared/display-text.ts';

/** "3 s", "4 min 10 s", "2 h 5 min", "3 d 4 h": for uptimes and countdowns. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

export function formatTime(ts: number): string {
  const d = new Date(ts);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** "14:02:11" (in the person's locale): a time of today, to the second. */
export function formatClock(ts: number): string {
  return new Date(ts).toLocaleTimeString();
}

export function formatDateTime(ts: number): string {
  return new Date(ts).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Error → words for a person (UiApiError messages already are), hidden characters escaped. */
export function errorText(err: unknown): string {
  return displayMessage(err instanceof Error ? err.message : String(err));
}

/**
 * "args[2]" (how the core names an argument: `secret move SERVER args[2]`) → 3, the line of the
 * Arguments box a person counts; undefined for any other key.
 */
export function argumentNumber(key: string): number | undefined {
  const index = /^args\[(\d+)\]$/.exec(key)?.[1];
  return index === undefined ? undefined : Number(index) + 1;
}
