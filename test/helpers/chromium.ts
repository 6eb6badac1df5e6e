/**
 * Debian's headless Chromium for rendering tests: where it is, how to take a
 * screenshot or the DOM after scripts ran, and a reader for the PNGs it
 * writes. Tests that use it skip, saying why, when it is missing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { inflateSync } from 'node:zlib';

export function findChromium(): string | null {
  const candidates = ['/usr/bin/chromium', ...(process.env['PATH'] ?? '').split(delimiter).filter(Boolean).map((d) => join(d, 'chromium'))];
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // Not here; try the next.
    }
  }
  return null;
}

export interface Png { width: number; height: number; channels: number; pixels: Buffer }

/** Reads an 8-bit RGB or RGBA, non-interlaced PNG: what Chromium writes. */
export function decodePng(file: Buffer): Png {
  assert.deepEqual([...file.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  let at = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (at < file.length) {
    const length = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    const data = file.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const [depth, colour, , , interlace] = [data[8], data[9], data[10], data[11], data[12]];
      assert.equal(depth, 8, 'bit depth');
      assert.equal(interlace, 0, 'not interlaced');
      assert.ok(colour === 2 || colour === 6, `colour type ${colour}`);
      channels = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      break;
    }
    at += 12 + length;
  }
  assert.ok(width > 0 && idat.length > 0, 'IHDR and IDAT chunks');
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  assert.equal(raw.length, height * (stride + 1), 'inflated size');
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels]! : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else assert.equal(filter, 0, `filter type ${filter}`);
      pixels[y * stride + x] = (line[x]! + predictor) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

/** Why a rendering test cannot run, or false when it can. */
export function chromiumMissing(): string | false {
  return findChromium() ? false : "Chromium is not installed (/usr/bin/chromium or chromium on PATH); install Debian's chromium package to run the rendering test";
}

export interface ChromiumRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs headless Chromium on a URL with extra switches (`--screenshot=...`, `--dump-dom`). */
export function runChromium(binary: string, url: string, profile: string, extra: readonly string[], size: readonly [number, number] = [1280, 900]): Promise<ChromiumRun> {
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, `--window-size=${size[0]},${size[1]}`, ...extra, url];
  return new Promise((resolve) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
