// Log redaction cost per line (electron/core/logs/redact.ts): 10 secrets, a server's stderr fed in
// 1,000-line chunks, typical lines and lines that are one long token (JSON without spaces), which is
// the worst case for catching a secret cut across two lines. Prints CPU µs per line.
//   node_modules/.bin/node bench/redact.ts
import { RedactingLineSplitter, Redactor } from '../electron/core/logs/redact.ts';

const secrets = Array.from({ length: 10 }, (_, i) => `sk_live_${i}_${'abcdef0123456789'.repeat(2)}`);
const kinds = {
  typical: 'INFO 2024-01-01T00:00:00Z request handled path=/v1/things?id=12345 status=200 in 4.2 ms',
  'one 200-character token': `{"a":"${'x'.repeat(200)}"}`,
};
for (const [kind, line] of Object.entries(kinds)) {
  let lines = 0;
  const splitter = new RedactingLineSplitter(new Redactor(secrets), () => lines++);
  const chunk = `${line}\n`.repeat(1_000);
  const before = process.cpuUsage();
  for (let i = 0; i < 200; i++) splitter.push(chunk);
  const used = process.cpuUsage(before);
  console.log(`${kind}: ${((used.user + used.system) / lines).toFixed(2)} µs CPU per line (${lines} lines)`);
}
