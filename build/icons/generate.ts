// Draws Switchboard's icons (app icon, tray icons per health state, macOS template images) and
// writes PNG, ICO and ICNS files into build/icons. Run: node build/icons/generate.ts
// Pure Node (zlib) so it runs on build machines without image tools; the output is committed.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

type Rgba = [number, number, number, number];
const here = new URL('./', import.meta.url);

/** A crc32 for PNG chunks. */
const CRC = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = (CRC[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function png(size: number, pixel: (x: number, y: number) => Rgba): Buffer {
  const raw = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    for (let x = 0; x < size; x++) {
      const [r, g, b, a] = pixel(x, y);
      raw.set([r, g, b, a], y * (size * 4 + 1) + 1 + x * 4);
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Coverage of a pixel by the switchboard glyph: a ring with three plugs (anti-aliased by supersampling). */
function glyph(size: number, x: number, y: number): number {
  let hits = 0;
  const samples = 4;
  for (let sy = 0; sy < samples; sy++) {
    for (let sx = 0; sx < samples; sx++) {
      const u = (x + (sx + 0.5) / samples) / size - 0.5;
      const v = (y + (sy + 0.5) / samples) / size - 0.5;
      const r = Math.hypot(u, v);
      const ring = r > 0.3 && r < 0.44;
      const plug = [-0.16, 0, 0.16].some((px) => Math.hypot(u - px, v) < 0.07);
      if (ring || plug) hits++;
    }
  }
  return hits / (samples * samples);
}

function icon(size: number, color: Rgba, background?: Rgba): Buffer {
  return png(size, (x, y) => {
    const cover = glyph(size, x, y);
    if (background) {
      const u = (x + 0.5) / size - 0.5;
      const v = (y + 0.5) / size - 0.5;
      const inside =
        Math.abs(u) < 0.46 &&
        Math.abs(v) < 0.46 &&
        Math.hypot(Math.max(Math.abs(u) - 0.34, 0), Math.max(Math.abs(v) - 0.34, 0)) < 0.12;
      if (!inside) return [0, 0, 0, 0];
      const mix = (i: 0 | 1 | 2) => Math.round(background[i] * (1 - cover) + color[i] * cover);
      return [mix(0), mix(1), mix(2), 255];
    }
    return [color[0], color[1], color[2], Math.round(color[3] * cover)];
  });
}

function ico(images: { size: number; data: Buffer }[]): Buffer {
  const header = Buffer.alloc(6 + images.length * 16);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(images.length, 4);
  let offset = header.length;
  images.forEach(({ size, data }, i) => {
    const at = 6 + i * 16;
    header[at] = size >= 256 ? 0 : size;
    header[at + 1] = size >= 256 ? 0 : size;
    header.writeUInt16LE(1, at + 4);
    header.writeUInt16LE(32, at + 6);
    header.writeUInt32LE(data.length, at + 8);
    header.writeUInt32LE(offset, at + 12);
    offset += data.length;
  });
  return Buffer.concat([header, ...images.map((i) => i.data)]);
}

function icns(images: { type: string; data: Buffer }[]): Buffer {
  const parts = images.map(({ type, data }) => {
    const head = Buffer.alloc(8);
    head.write(type, 0, 'ascii');
    head.writeUInt32BE(data.length + 8, 4);
    return Buffer.concat([head, data]);
  });
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'ascii');
  head.writeUInt32BE(8 + parts.reduce((n, p) => n + p.length, 0), 4);
  return Buffer.concat([head, ...parts]);
}

const write = (name: string, data: Buffer) => writeFileSync(new URL(name, here), data);
const white: Rgba = [255, 255, 255, 255];
const brand: Rgba = [37, 99, 235, 255];
const states: Record<string, Rgba> = {
  idle: [140, 140, 140, 255],
  ok: [22, 163, 74, 255],
  attention: [217, 119, 6, 255],
  error: [220, 38, 38, 255],
};

// App icon: white glyph on the brand colour.
const app = (size: number) => icon(size, white, brand);
write('icon.png', app(512));
write('icon.ico', ico([16, 32, 48, 256].map((size) => ({ size, data: app(size) }))));
write(
  'icon.icns',
  icns([
    { type: 'ic07', data: app(128) },
    { type: 'ic08', data: app(256) },
    { type: 'ic09', data: app(512) },
  ]),
);
// Tray (Windows/Linux): coloured by health, 16 px and 32 px (@2x).
for (const [state, color] of Object.entries(states)) {
  write(`tray-${state}.png`, icon(16, color));
  write(`tray-${state}@2x.png`, icon(32, color));
}
// macOS menu bar: template images (black + alpha) that the OS tints; health shows in the title.
write('trayTemplate.png', icon(16, [0, 0, 0, 255]));
write('trayTemplate@2x.png', icon(32, [0, 0, 0, 255]));
console.log('icons written to build/icons');
