import { closeSync, openSync, readSync, realpathSync } from 'node:fs';
import { posix } from 'node:path';

/** How many levels of `#!` interpreters are followed (a script run by a script run by a binary). */
const MAX_DEPTH = 3;
const HEAD_BYTES = 4096;

/**
 * The files a program needs readable to start at all: the path it is run by, the real file behind
 * its symlinks, the interpreter its `#!` line names (and that one's real file and loader), and the
 * ELF loader (PT_INTERP) a binary asks for. A `#!/usr/bin/env node` interpreter is found on PATH
 * inside the sandbox too, so it is not followed here. Absolute paths only; unreadable ones are skipped.
 */
export function programFiles(programs: readonly (string | undefined)[]): string[] {
  const out = new Set<string>();
  const visit = (path: string, depth: number) => {
    if (!path.startsWith('/') || out.has(path)) return;
    out.add(path);
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      return;
    }
    out.add(real);
    if (depth >= MAX_DEPTH) return;
    const next = startedBy(real);
    if (next) visit(next, depth + 1);
  };
  for (const program of programs) if (program) visit(posix.normalize(program), 0);
  return [...out];
}

/** The program the kernel starts first to run this file: its `#!` interpreter or ELF loader. */
function startedBy(file: string): string | undefined {
  const head = readHead(file);
  if (!head) return undefined;
  if (head[0] === 0x23 && head[1] === 0x21) return shebang(head);
  if (head[0] === 0x7f && head.toString('latin1', 1, 4) === 'ELF') return elfInterpreter(head);
  return undefined;
}

function readHead(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buffer = Buffer.alloc(HEAD_BYTES);
    return buffer.subarray(0, readSync(fd, buffer, 0, HEAD_BYTES, 0));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function shebang(head: Buffer): string | undefined {
  const line = head.toString('utf8', 2, Math.max(2, head.indexOf(0x0a))).trim();
  const [interpreter] = line.split(/\s+/);
  if (!interpreter?.startsWith('/')) return undefined;
  // `#!/usr/bin/env X`: env is the program; X is looked up on PATH, inside the sandbox as outside.
  return interpreter;
}

/** The loader path in an ELF file's PT_INTERP header, when its headers are in the first bytes read. */
function elfInterpreter(head: Buffer): string | undefined {
  if (head.length < 64) return undefined;
  const is64 = head[4] === 2;
  const little = head[5] === 1;
  const u16 = (at: number) => (little ? head.readUInt16LE(at) : head.readUInt16BE(at));
  const u32 = (at: number) => (little ? head.readUInt32LE(at) : head.readUInt32BE(at));
  const word = (at: number) =>
    is64 ? Number(little ? head.readBigUInt64LE(at) : head.readBigUInt64BE(at)) : u32(at);
  const phoff = word(is64 ? 0x20 : 0x1c);
  const size = u16(is64 ? 0x36 : 0x2a);
  const count = u16(is64 ? 0x38 : 0x2c);
  for (let i = 0; i < count; i++) {
    const at = phoff + i * size;
    if (at + size > head.length) return undefined;
    if (u32(at) !== 3) continue; // PT_INTERP
    const offset = word(at + (is64 ? 0x08 : 0x04));
    const length = word(at + (is64 ? 0x20 : 0x10));
    if (offset + length > head.length || length < 2) return undefined;
    return head.toString('latin1', offset, offset + length - 1);
  }
  return undefined;
}
