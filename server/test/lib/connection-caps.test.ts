/**
 * The connection caps' rules: slots per address key and per instance, the key of an address (IPv6 by /64),
 * and the per-instance cap derived from the open-file limit.
 */
import { describe, expect, it } from 'vitest';
import {
  addressKey,
  ConnectionSlots,
  connectionLimits,
  connectionsForHeap,
  connectionsForOpenFiles,
  openFileLimit,
} from '../../src/lib/connection-caps.js';

describe('connection slots', () => {
  it('admits an address up to its cap, refuses the next (counted), and admits it again once one is released', () => {
    const slots = new ConnectionSlots({ perAddress: 3, perInstance: 100 });
    const keys = [1, 2, 3].map(() => slots.admit('203.0.113.7'));
    expect(keys).toEqual([1, 2, 3].map(() => ({ key: '203.0.113.7' })));
    expect(slots.admit('203.0.113.7')).toEqual({ refused: 'address' });
    expect(slots.admit('::ffff:203.0.113.7')).toEqual({ refused: 'address' });
    // Another address is not concerned.
    expect(slots.admit('203.0.113.8')).toEqual({ key: '203.0.113.8' });
    expect(slots.open).toBe(4);
    expect(slots.refused).toEqual({ address: 2, instance: 0 });
    slots.release('203.0.113.7');
    expect(slots.heldBy('203.0.113.7')).toBe(2);
    expect(slots.admit('203.0.113.7')).toEqual({ key: '203.0.113.7' });
  });

  it('refuses any address once the instance holds its cap', () => {
    const slots = new ConnectionSlots({ perAddress: 10, perInstance: 2 });
    expect(slots.admit('198.51.100.1')).toEqual({ key: '198.51.100.1' });
    expect(slots.admit('198.51.100.2')).toEqual({ key: '198.51.100.2' });
    expect(slots.admit('198.51.100.3')).toEqual({ refused: 'instance' });
    expect(slots.refused).toEqual({ address: 0, instance: 1 });
    slots.release('198.51.100.1');
    expect(slots.admit('198.51.100.3')).toEqual({ key: '198.51.100.3' });
    expect(slots.open).toBe(2);
  });

  it('has no cap per address when it is 0 (behind proxies): only the instance’s', () => {
    const slots = new ConnectionSlots({ perAddress: 0, perInstance: 1000 });
    for (let i = 0; i < 1000; i++) expect(slots.admit('10.0.0.2')).toEqual({ key: '10.0.0.2' });
    expect(slots.admit('10.0.0.2')).toEqual({ refused: 'instance' });
  });

  it('gives a slot back once: a second release of a key, or of one never admitted, changes nothing', () => {
    const slots = new ConnectionSlots({ perAddress: 1, perInstance: 10 });
    slots.admit('192.0.2.1');
    slots.release('192.0.2.1');
    slots.release('192.0.2.1');
    slots.release('192.0.2.99');
    expect(slots.open).toBe(0);
    expect(slots.heldBy('192.0.2.1')).toBe(0);
    expect(slots.admit('192.0.2.1')).toEqual({ key: '192.0.2.1' });
  });
});

describe('the key of a client address', () => {
  it.each([
    ['an IPv4 address', '192.0.2.10', '192.0.2.10'],
    ['an IPv4-mapped IPv6 address', '::ffff:192.0.2.10', '192.0.2.10'],
    ['an IPv6 address: its /64', '2001:db8:85a3:12:8a2e:370:7334:1', '2001:db8:85a3:12::/64'],
    ['another address of the same /64', '2001:0db8:85a3:0012::ffff', '2001:db8:85a3:12::/64'],
    ['a compressed address', '2001:db8::1', '2001:db8:0:0::/64'],
    ['with a zone', 'fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['loopback', '::1', '0:0:0:0::/64'],
    ['what is not an address (kept as it is)', 'unknown', 'unknown'],
  ])('%s', (_, address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  it('is the same asked again, and past the bound of the keys kept (thousands of other addresses in between)', () => {
    expect(addressKey('2001:db8:85a3:12:8a2e:370:7334:1')).toBe('2001:db8:85a3:12::/64');
    for (let i = 0; i < 10_000; i++) addressKey(`2001:db8:${i.toString(16)}::${i.toString(16)}`);
    expect(addressKey(`2001:db8:${(9_999).toString(16)}::1`)).toBe('2001:db8:270f:0::/64');
    expect(addressKey('2001:db8:85a3:12:8a2e:370:7334:1')).toBe('2001:db8:85a3:12::/64');
    expect(addressKey('::ffff:192.0.2.10')).toBe('192.0.2.10');
  });

  it('a host with a whole /64 counts as one address', () => {
    const slots = new ConnectionSlots({ perAddress: 2, perInstance: 100 });
    expect('key' in slots.admit('2001:db8:1:2::a')).toBe(true);
    expect('key' in slots.admit('2001:db8:1:2::b')).toBe(true);
    expect(slots.admit('2001:db8:1:2:ffff::c')).toEqual({ refused: 'address' });
    expect('key' in slots.admit('2001:db8:1:3::a')).toBe(true);
  });
});

describe('the caps as configured', () => {
  const MIB = 1024 * 1024;
  const limits = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            20000                40000                files
Max locked memory         8388608              8388608              bytes
`;

  it('reads the soft open-file limit of /proc/self/limits, and null where it cannot', () => {
    expect(openFileLimit(() => limits)).toBe(20000);
    expect(openFileLimit(() => limits.replace('20000', 'unlimited'))).toBeNull();
    expect(
      openFileLimit(() => {
        throw new Error('ENOENT');
      }),
    ).toBeNull();
  });

  it('derives the instance’s cap from the open files, keeping a tenth (at least 128) for the rest', () => {
    expect(connectionsForOpenFiles(20_000)).toBe(18_000);
    expect(connectionsForOpenFiles(65_536)).toBe(58_982);
    expect(connectionsForOpenFiles(1024)).toBe(896);
    expect(connectionsForOpenFiles(100)).toBe(1);
  });

  it('derives the instance’s cap from the heap too: half of it, at 8 KiB a connection', () => {
    // `npm start`'s --max-old-space-size=160: V8's limit is 208 MiB (old space and young generation).
    expect(connectionsForHeap(208 * MIB)).toBe(13_312);
    expect(connectionsForHeap(160 * MIB)).toBe(10_240);
    expect(connectionsForHeap(4096 * MIB)).toBe(262_144);
  });

  it('takes the configured caps, derives a per-instance cap of 0 (the lower of files and heap), and has no per-address cap behind proxies', () => {
    const config = { connectionsPerAddress: 256, connectionsPerInstance: 0, trustProxyHops: 0 };
    const bigHeap = { openFiles: 20_000, heapLimitBytes: 4096 * MIB };
    expect(connectionLimits(config, bigHeap)).toEqual({ perAddress: 256, perInstance: 18_000 });
    expect(connectionLimits(config, { openFiles: 65_536, heapLimitBytes: 160 * MIB })).toEqual({
      perAddress: 256,
      perInstance: 10_240,
    });
    expect(connectionLimits({ ...config, connectionsPerInstance: 500 }, bigHeap)).toEqual({
      perAddress: 256,
      perInstance: 500,
    });
    expect(connectionLimits({ ...config, trustProxyHops: 1 }, bigHeap)).toEqual({ perAddress: 0, perInstance: 18_000 });
    // No /proc: a common soft limit is assumed.
    expect(connectionLimits(config, { ...bigHeap, openFiles: null })).toEqual({ perAddress: 256, perInstance: 896 });
  });

  it('reads this process’s own limit on Linux', () => {
    const own = openFileLimit();
    if (process.platform === 'linux') expect(own).toBeGreaterThan(0);
    else expect(own).toBeNull();
  });
});
