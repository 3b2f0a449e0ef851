import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { unzipSync } from 'fflate';
import { UserError } from '../errors.ts';

/**
 * Unpacks a bundle's zip (its signature block already cut off) into `outputDir`. Our own rather than
 * @anthropic-ai/mcpb's unpackExtension, which writes every entry as a file and so fails on the
 * folder entries `zip -r` makes ("server/"). Each entry's place is judged after resolving it: one
 * that lands outside `outputDir` refuses the whole bundle. A file keeps its permission bits from the
 * zip (an executable stays one), never setuid/setgid/sticky; a link is written as a plain file.
 */
export function unzipBundle(zip: Uint8Array, outputDir: string, file: string): void {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(zip);
  } catch (err) {
    throw new UserError(
      `${file} is not an MCP bundle (it cannot be unpacked as a zip: ${(err as Error).message})`,
    );
  }
  const modes = entryModes(Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength));
  const root = resolve(outputDir);
  for (const [name, data] of Object.entries(entries)) {
    const target = resolve(root, name);
    const inside = relative(root, target);
    const outside = isAbsolute(inside) || inside === '..' || inside.startsWith(`..${sep}`);
    if (outside || (inside === '' && !name.endsWith('/')))
      throw new UserError(`${file}: its entry "${name}" would be unpacked outside the bundle's folder`, {
        hint: 'this is not a bundle made by `mcpb pack` or `zip -r`; do not install it',
      });
    if (name.endsWith('/')) {
      mkdirSync(target, { recursive: true, mode: 0o700 });
      continue;
    }
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    writeFileSync(target, data, { mode: 0o600 });
    // mcpb pack writes the permission bits only; `zip` adds the file type (a link's is not kept).
    const mode = modes.get(name) ?? 0;
    const type = mode & 0o170000;
    chmodSync(target, (type === 0 || type === 0o100000) && mode & 0o777 ? mode & 0o777 : 0o644);
  }
}

/** Each entry's Unix mode (upper 16 bits of its external attributes) from the zip's central directory. */
function entryModes(zip: Buffer): Map<string, number> {
  const modes = new Map<string, number>();
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) return modes;
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let n = 0; n < count && at + 46 <= zip.length && zip.readUInt32LE(at) === 0x02014b50; n++) {
    const nameLength = zip.readUInt16LE(at + 28);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const mode = zip.readUInt32LE(at + 38) >>> 16;
    if (mode) modes.set(name, mode);
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return modes;
}
