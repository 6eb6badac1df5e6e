/**
 * Network-automation vocabulary the generated jobs are written from. Lists
 * are sized so that a text search for a device, site or customer selects a
 * meaningful subset of jobs rather than all or none.
 */
import type { Rng } from './random.ts';

export interface Site {
  readonly code: string;
  readonly city: string;
}

export const SITES: readonly Site[] = [
  { code: 'nyc', city: 'New York' },
  { code: 'chi', city: 'Chicago' },
  { code: 'dal', city: 'Dallas' },
  { code: 'sjc', city: 'San Jose' },
  { code: 'atl', city: 'Atlanta' },
  { code: 'sea', city: 'Seattle' },
  { code: 'den', city: 'Denver' },
  { code: 'lon', city: 'London' },
  { code: 'fra', city: 'Frankfurt' },
  { code: 'ams', city: 'Amsterdam' },
  { code: 'sin', city: 'Singapore' },
  { code: 'tyo', city: 'Tokyo' },
];

export const ROUTER_ROLES = ['core-rtr', 'edge-rtr', 'pe-rtr', 'bdr-rtr'] as const;
export const SWITCH_ROLES = ['agg-sw', 'acc-sw', 'tor-sw', 'spine-sw'] as const;
export const FIREWALL_ROLES = ['fw', 'edge-fw', 'dc-fw'] as const;

export const CUSTOMERS = [
  'Acme Corp', 'Globex', 'Initech', 'Umbrella Health', 'Stark Logistics', 'Wayne Financial', 'Hooli',
  'Vandelay Imports', 'Soylent Foods', 'Cyberdyne Systems', 'Wonka Industries', 'Tyrell Biotech',
  'Oceanic Airlines', 'Massive Dynamic', 'Pied Piper', 'Dunder Mifflin',
] as const;

export const CARRIERS = ['Lumen', 'Zayo', 'Cogent', 'NTT', 'Telia', 'GTT', 'Verizon', 'AT&T'] as const;

export interface OsRelease {
  readonly os: string;
  readonly from: string;
  readonly to: string;
}

export const OS_RELEASES: readonly OsRelease[] = [
  { os: 'IOS-XR', from: '7.5.2', to: '7.9.2' },
  { os: 'IOS-XR', from: '7.3.1', to: '7.8.1' },
  { os: 'IOS-XE', from: '17.6.5', to: '17.9.4' },
  { os: 'NX-OS', from: '9.3(10)', to: '10.3(3)' },
  { os: 'Junos', from: '21.2R3', to: '22.4R3' },
  { os: 'EOS', from: '4.28.3M', to: '4.30.2F' },
];

export const INTERFACES = [
  'GigabitEthernet0/0/1', 'GigabitEthernet0/0/3', 'TenGigE0/1/0/3', 'TenGigE0/0/0/12', 'HundredGigE0/0/1/0',
  'Ethernet1/12', 'Ethernet1/48', 'xe-0/0/4', 'xe-1/2/0', 'et-0/0/2',
] as const;

export const SPEEDS = ['1G', '10G', '100G'] as const;

export const VLAN_NAMES = ['voice', 'guest-wifi', 'pos', 'cctv', 'mgmt', 'storage', 'vmotion', 'iot', 'lab', 'backup'] as const;

export const POLICIES = ['CIS-L1', 'PCI-DSS', 'NIST-800-53', 'golden-config-v12', 'SOX-network'] as const;

export const FW_APPS = ['https', 'ssh', 'syslog', 'snmp', 'ldaps', 'postgres', 'kafka', 'ntp'] as const;

export const FW_PORTS = [443, 22, 514, 161, 636, 5432, 9092, 123] as const;

export function device(r: Rng, roles: readonly string[], site: Site): string {
  return `${r.pick(roles)}-${String(r.int(1, 24)).padStart(2, '0')}.${site.code}`;
}

export function changeTicket(r: Rng): string {
  return `CHG${String(r.int(10000, 99999) * 100 + r.int(0, 99)).padStart(7, '0')}`;
}

export function incidentTicket(r: Rng): string {
  return `INC${String(r.int(100000, 9999999)).padStart(7, '0')}`;
}

export function circuitId(r: Rng): string {
  return `${r.pick(['CKT', 'OLX', 'DIA'])}-${r.int(100000, 999999)}`;
}

export function ipv4(r: Rng, prefix = '10'): string {
  return `${prefix}.${r.int(0, 255)}.${r.int(0, 255)}.${r.int(1, 254)}`;
}

export function subnet(r: Rng): string {
  return `10.${r.int(0, 255)}.${r.int(0, 255)}.0/${r.pick([24, 26, 28])}`;
}

/** Error messages the platform and its adapters report for a failed task. */
export function taskError(r: Rng, dev: string): string {
  switch (r.int(0, 7)) {
    case 0:
      return `Device ${dev} unreachable: connection timed out after 30000 ms`;
    case 1:
      return 'Job has no available transitions';
    case 2:
      return `Commit failed on ${dev}: device is out of sync`;
    case 3:
      return `Authentication failed for ${dev}: invalid credentials in authgroup default`;
    case 4:
      return 'Request failed with status code 503';
    case 5:
      return `Pre-check failed: ${dev} has ${r.int(2, 40)} interfaces in down state`;
    case 6:
      return 'Transformation error: cannot read property "interfaces" of undefined';
    default:
      return `Validation failed: expected BGP state Established on ${dev}, found Idle`;
  }
}
