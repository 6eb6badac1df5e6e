/**
 * NSO actions invoked with POST (RFC 8040 3.6): on a device
 * (`tailf-ncs:devices/device=ce0/sync-from`), on all devices
 * (`tailf-ncs:devices/check-sync`), and on service instances. Nothing talks
 * to a device; answers are canned, except that a device whose
 * `state/admin-state` is `locked` or `southbound-locked` fails the
 * southbound ones the way NSO reports it (`result: false` with `info`).
 */
import { createHash } from 'node:crypto';
import { notFound } from './errors.ts';
import { isObject, localOf, scalarText } from './json.ts';
import type { Json, JsonObject } from './json.ts';
import { describe } from './tree.ts';
import type { Datastore, PathStep } from './tree.ts';

const DEVICE_ACTIONS = ['sync-from', 'sync-to', 'check-sync', 'compare-config', 'connect', 'disconnect', 'ping', 'fetch-host-keys'];
const DEVICES_ACTIONS = ['sync-from', 'sync-to', 'check-sync', 'connect', 'fetch-ssh-host-keys'];
const SERVICE_ACTIONS = ['re-deploy', 'un-deploy', 'check-sync', 'get-modifications'];
const ACTION_NAMES = new Set([...DEVICE_ACTIONS, ...DEVICES_ACTIONS, ...SERVICE_ACTIONS]);

/** Whether a POST to this path invokes an action rather than creating data. */
export function isActionPath(steps: readonly PathStep[]): boolean {
  const last = steps[steps.length - 1];
  return last !== undefined && last.keys === null && ACTION_NAMES.has(localOf(last.name));
}

/** The action's answer as `tailf-ncs:output`, or null for actions without output (204). */
export function runAction(store: Datastore, steps: readonly PathStep[]): JsonObject | null {
  const last = steps[steps.length - 1];
  const parent = steps.slice(0, -1);
  const parentName = localOf(parent[parent.length - 1]?.name ?? '');
  if (last === undefined || parent.length === 0) throw notFound(`no such operation ${describe(steps)}`);
  const name = localOf(last.name);
  let output: JsonObject | null | undefined;
  if (parentName === 'ssh' && name === 'fetch-host-keys') {
    // The ssh container itself need not exist in the data for its action to run.
    const device = store.get(parent.slice(0, -1));
    if (device.entry && isObject(device.value)) output = deviceAction(name, device.value);
  } else if (parent.length === 1 && parentName === 'devices' && DEVICES_ACTIONS.includes(name)) {
    const list = [...parent, { name: 'device', keys: null }];
    output = devicesAction(name, store.has(list) ? store.get(list).value : []);
  } else {
    const target = store.get(parent);
    if (target.entry && parentName === 'device' && isObject(target.value) && DEVICE_ACTIONS.includes(name)) output = deviceAction(name, target.value);
    else if (localOf(parent[0]?.name ?? '') === 'services' && parent.length >= 2 && SERVICE_ACTIONS.includes(name)) output = serviceAction(name);
  }
  if (output === undefined) throw notFound(`no action ${name} on ${describe(parent)}`);
  return output === null ? null : { 'tailf-ncs:output': output };
}

function deviceAction(action: string, device: JsonObject): JsonObject | null {
  const name = scalarText(device['name']) ?? '';
  const address = scalarText(device['address']) ?? '';
  const state = isObject(device['state']) ? scalarText(device['state']['admin-state']) : undefined;
  const locked = state === 'locked' || state === 'southbound-locked';
  switch (action) {
    case 'sync-from':
    case 'sync-to':
      return locked ? { result: false, info: `Device ${name} is ${state}` } : { result: true };
    case 'check-sync':
      return { result: locked ? 'locked' : 'in-sync' };
    case 'connect':
      return locked ? { result: false, info: `Device ${name} is ${state}` } : { result: true, info: `(admin) Connected to ${name} - ${address}:${scalarText(device['port']) ?? '22'}` };
    case 'ping':
      return { result: `PING ${address} (${address}): 56 data bytes\n--- ${address} ping statistics ---\n1 packets transmitted, 1 packets received, 0.0% packet loss` };
    case 'fetch-host-keys':
      return { result: 'unchanged', fingerprint: [{ algorithm: 'ssh-rsa', value: fingerprint(name) }] };
    default:
      // disconnect and compare-config (with nothing to compare) have no output.
      return null;
  }
}

function devicesAction(action: string, devices: Json): JsonObject {
  const entries = Array.isArray(devices) ? devices.filter(isObject) : [];
  const each = (make: (device: JsonObject, name: string) => JsonObject): JsonObject[] => entries.map((device) => make(device, scalarText(device['name']) ?? ''));
  switch (action) {
    case 'check-sync':
      return { 'sync-result': each((device, name) => ({ device: name, ...(deviceAction('check-sync', device) ?? {}) })) };
    case 'connect':
      return { 'connect-result': each((device, name) => ({ device: name, ...(deviceAction('connect', device) ?? {}) })) };
    case 'fetch-ssh-host-keys':
      return { 'fetch-result': each((_device, name) => ({ device: name, result: 'unchanged', fingerprint: { algorithm: 'ssh-rsa', value: fingerprint(name) } })) };
    default:
      return { 'sync-result': each((device, name) => ({ device: name, ...(deviceAction(action, device) ?? {}) })) };
  }
}

function serviceAction(action: string): JsonObject | null {
  if (action === 'check-sync') return { 'in-sync': true };
  if (action === 'get-modifications') return { cli: { 'local-node': { data: '' } } };
  return null;
}

/** Stable per device, so tests can compare answers. */
function fingerprint(name: string): string {
  return (createHash('md5').update(name).digest('hex').match(/../g) ?? []).join(':');
}
