/** The demo data: three devices (two IOS CEs and an IOS XR PE) and an empty services container. */
import type { JsonObject } from './json.ts';

export function emptyTree(): JsonObject {
  return { 'tailf-ncs:devices': { device: [] }, 'tailf-ncs:services': {} };
}

const ios = (name: string, port: number, loopback: string): JsonObject => ({
  name,
  address: '127.0.0.1',
  port,
  authgroup: 'default',
  'device-type': { cli: { 'ned-id': 'cisco-ios-cli-6.100:cisco-ios-cli-6.100' } },
  state: { 'admin-state': 'unlocked' },
  config: {
    'tailf-ned-cisco-ios:hostname': name,
    'tailf-ned-cisco-ios:interface': {
      Loopback: [{ name: '0', ip: { address: { primary: { address: loopback, mask: '255.255.255.255' } } } }],
      GigabitEthernet: [{ name: '0/1', description: 'to pe0' }],
    },
  },
});

export function seedTree(): JsonObject {
  return {
    'tailf-ncs:devices': {
      authgroups: { group: [{ name: 'default', 'default-map': { 'remote-name': 'admin', 'remote-password': '$9$simulated' } }] },
      device: [
        ios('ce0', 10022, '10.0.0.1'),
        ios('ce1', 10023, '10.0.0.2'),
        {
          name: 'pe0',
          address: '127.0.0.1',
          port: 10024,
          authgroup: 'default',
          'device-type': { cli: { 'ned-id': 'cisco-iosxr-cli-7.55:cisco-iosxr-cli-7.55' } },
          state: { 'admin-state': 'unlocked' },
          config: {
            'tailf-ned-cisco-ios-xr:hostname': 'pe0',
            // IOS XR NED lists are keyed by `id`, which shows the key guess working without `name`.
            'tailf-ned-cisco-ios-xr:interface': { Loopback: [{ id: '0', ipv4: { address: { ip: '10.0.0.10', mask: '255.255.255.255' } } }] },
          },
        },
      ],
    },
    'tailf-ncs:services': {},
  };
}
