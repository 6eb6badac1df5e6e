/**
 * The eight workflows the generated jobs run. Each has a fixed chain of tasks
 * (the success path every job follows), the inputs a job is started with and
 * several ways its description is worded. Weights make some workflows far
 * more common than others, as scheduled backups and audits are in practice.
 */
import type { Rng } from './random.ts';
import type { JobVars, StepDef } from './steps.ts';
import {
  approval, closeChangeRequest, createChangeRequest, delay, evaluation, firewallPush, gitBackup, makeData,
  netboxLookup, newVariable, nsoPush, query, runCommand,
} from './steps.ts';
import {
  CARRIERS, CUSTOMERS, FIREWALL_ROLES, FW_APPS, FW_PORTS, INTERFACES, OS_RELEASES, POLICIES, ROUTER_ROLES, SITES,
  SPEEDS, SWITCH_ROLES, VLAN_NAMES, changeTicket, circuitId, device, incidentTicket, ipv4, subnet,
} from './vocabulary.ts';

export interface WorkflowStep extends StepDef {
  /** Task key inside the workflow: short lowercase hex. */
  readonly key: string;
}

export interface WorkflowDef {
  readonly name: string;
  readonly description: string;
  /** Relative share of jobs. */
  readonly weight: number;
  readonly steps: readonly WorkflowStep[];
  readonly inputs: (r: Rng) => JobVars;
  readonly describe: (r: Rng, v: JobVars) => string;
}

function steps(keys: readonly string[], defs: readonly StepDef[]): WorkflowStep[] {
  if (keys.length !== defs.length) throw new Error('each step needs a key');
  return defs.map((d, i) => ({ ...d, key: keys[i]! }));
}

const s = (v: JobVars, k: string): string => String(v[k]);

function siteInputs(r: Rng, roles: readonly string[]): JobVars {
  const site = r.pick(SITES);
  return { site: site.code, siteName: site.city, device: device(r, roles, site), ticket: changeTicket(r) };
}

export const WORKFLOWS: readonly WorkflowDef[] = [
  {
    name: 'Device Backup',
    description: 'Back up the running configuration of a device to the config repository',
    weight: 26,
    steps: steps(['b1', 'b2c', 'b3d4'], [
      runCommand('Collect running configuration', 'show running-config'),
      newVariable('Store backup metadata', 'site'),
      gitBackup('Commit configuration to repository'),
    ]),
    inputs: (r) => siteInputs(r, [...ROUTER_ROLES, ...SWITCH_ROLES, ...FIREWALL_ROLES]),
    describe: (r, v) => r.pick([
      () => `Nightly config backup for ${s(v, 'siteName')} devices`,
      () => `Backup running config of ${s(v, 'device')}`,
      () => `Pre-change backup of ${s(v, 'device')} for ${s(v, 'ticket')}`,
      () => `Scheduled configuration archive of ${s(v, 'device')} in ${s(v, 'siteName')}`,
    ])(),
  },
  {
    name: 'Compliance Audit',
    description: 'Check a device configuration against the compliance policy',
    weight: 18,
    steps: steps(['c01', 'c02', 'c03', 'c0a'], [
      runCommand('Collect configuration for audit', 'show running-config'),
      query('Extract policy section', 'policy.rules'),
      evaluation('Evaluate compliance result', 'compliant', 'true'),
      newVariable('Record audit report', 'policy'),
    ]),
    inputs: (r) => ({ ...siteInputs(r, [...ROUTER_ROLES, ...SWITCH_ROLES]), policy: r.pick(POLICIES), advisory: `cisco-sa-${r.int(20230101, 20241231)}` }),
    describe: (r, v) => r.pick([
      () => `Weekly compliance audit of ${s(v, 'siteName')} network devices`,
      () => `Audit ${s(v, 'device')} against ${s(v, 'policy')} policy`,
      () => `${s(v, 'policy')} compliance check for ${s(v, 'device')}`,
      () => `Quarterly ${s(v, 'policy')} review of ${s(v, 'siteName')} routers`,
      () => `Verify ${s(v, 'device')} is not exposed to advisory ${s(v, 'advisory')}`,
      () => `Check ${s(v, 'device')} for a required software upgrade (${s(v, 'advisory')})`,
      () => `Golden config drift report for ${s(v, 'device')}`,
      () => `Audit of SNMP and AAA settings on ${s(v, 'device')}`,
    ])(),
  },
  {
    name: 'Port Turn-Up',
    description: 'Activate a customer-facing port and verify traffic',
    weight: 14,
    steps: steps(['1a2b', '3c4d', '5e6f', '7a8b', '9c0d', 'ab12'], [
      createChangeRequest(),
      netboxLookup('getDevice', 'Look up device in inventory'),
      makeData('Render interface configuration', 'interface <!interface!>\n description <!customer!>\n no shutdown'),
      nsoPush('Push interface configuration'),
      approval('Verify port is passing traffic'),
      closeChangeRequest(),
    ]),
    inputs: (r) => ({ ...siteInputs(r, [...SWITCH_ROLES, 'pe-rtr']), customer: r.pick(CUSTOMERS), interface: r.pick(INTERFACES), speed: r.pick(SPEEDS) }),
    describe: (r, v) => r.pick([
      () => `Turn up ${s(v, 'interface')} on ${s(v, 'device')} for ${s(v, 'customer')} (${s(v, 'ticket')})`,
      () => `Activate customer port ${s(v, 'interface')} on ${s(v, 'device')}`,
      () => `New ${s(v, 'speed')} access port for ${s(v, 'customer')} at ${s(v, 'siteName')}`,
      () => `Port activation for ${s(v, 'customer')} order ${r.int(400000, 499999)}`,
    ])(),
  },
  {
    name: 'VLAN Provisioning',
    description: 'Create a VLAN and add it to the access and trunk ports of a switch',
    weight: 12,
    steps: steps(['d1', 'd2', 'd3', 'd4'], [
      newVariable('Allocate VLAN id', 'vlan'),
      makeData('Render VLAN configuration', 'vlan <!vlan!>\n name <!vlanName!>'),
      nsoPush('Push VLAN to switch'),
      closeChangeRequest('Update change record'),
    ]),
    inputs: (r) => ({ ...siteInputs(r, SWITCH_ROLES), vlan: r.int(100, 3999), vlanName: r.pick(VLAN_NAMES), customer: r.pick(CUSTOMERS), interface: r.pick(INTERFACES) }),
    describe: (r, v) => r.pick([
      () => `Provision VLAN ${s(v, 'vlan')} (${s(v, 'vlanName')}) on ${s(v, 'device')} for ${s(v, 'customer')}`,
      () => `Extend VLAN ${s(v, 'vlan')} across ${s(v, 'siteName')} access switches`,
      () => `Add VLAN ${s(v, 'vlan')} to trunk ${s(v, 'interface')} on ${s(v, 'device')}`,
      () => `New ${s(v, 'vlanName')} VLAN for ${s(v, 'customer')} in ${s(v, 'siteName')} (${s(v, 'ticket')})`,
    ])(),
  },
  {
    name: 'Firewall Rule Change',
    description: 'Add, change or remove a firewall security rule after approval',
    weight: 10,
    steps: steps(['e1', 'e2', 'e3', 'e4', 'e5'], [
      createChangeRequest('Open firewall change request'),
      makeData('Build security rule', 'rule <!rule!> allow <!app!>'),
      approval('Security team approval'),
      firewallPush('Commit policy to firewall'),
      closeChangeRequest(),
    ]),
    inputs: (r) => {
      const i = r.int(0, FW_APPS.length - 1);
      return { ...siteInputs(r, FIREWALL_ROLES), source: subnet(r), destination: subnet(r), app: FW_APPS[i]!, port: FW_PORTS[i]!, rule: `R-${r.int(1000, 9999)}`, incident: incidentTicket(r) };
    },
    describe: (r, v) => r.pick([
      () => `Open tcp/${s(v, 'port')} (${s(v, 'app')}) from ${s(v, 'source')} to ${s(v, 'destination')} on ${s(v, 'device')}`,
      () => `Remove stale rule ${s(v, 'rule')} on ${s(v, 'device')} (${s(v, 'ticket')})`,
      () => `Emergency block of ${ipv4(r, '203')} on ${s(v, 'device')} per ${s(v, 'incident')}`,
      () => `Allow ${s(v, 'app')} to ${s(v, 'destination')} for application onboarding in ${s(v, 'siteName')}`,
    ])(),
  },
  {
    name: 'Router Software Upgrade',
    description: 'Stage, install and verify a new network operating system release',
    weight: 8,
    steps: steps(['f1', 'f2', 'f3', 'f4', 'f5', 'f6'], [
      createChangeRequest('Open maintenance change'),
      runCommand('Run pre-checks', 'show version; show install active'),
      approval('Approve reload window'),
      runCommand('Install image and reload', 'install add activate commit'),
      delay('Wait for device to come back', 300),
      evaluation('Verify running version', 'targetVersion', '$var.f4.result'),
    ]),
    inputs: (r) => {
      const rel = r.pick(OS_RELEASES);
      return { ...siteInputs(r, ROUTER_ROLES), os: rel.os, currentVersion: rel.from, targetVersion: rel.to, window: `MW-${r.int(100, 999)}` };
    },
    describe: (r, v) => r.pick([
      () => `Upgrade ${s(v, 'device')} from ${s(v, 'os')} ${s(v, 'currentVersion')} to ${s(v, 'targetVersion')} (${s(v, 'ticket')})`,
      () => `Install ${s(v, 'os')} ${s(v, 'targetVersion')} image on ${s(v, 'device')} in window ${s(v, 'window')}`,
      () => `Scheduled software upgrade of ${s(v, 'device')} per ${s(v, 'ticket')}`,
      () => `Reload ${s(v, 'device')} onto ${s(v, 'os')} ${s(v, 'targetVersion')} after pre-checks`,
      () => `${s(v, 'os')} maintenance release rollout to ${s(v, 'siteName')} edge`,
    ])(),
  },
  {
    name: 'BGP Peer Setup',
    description: 'Configure an eBGP or iBGP session and check it establishes',
    weight: 7,
    steps: steps(['a1', 'a2', 'a3', 'a4', 'a5'], [
      query('Resolve peer parameters', 'peer.address'),
      makeData('Render BGP neighbor configuration', 'router bgp 65000\n neighbor <!peer!> remote-as <!asn!>'),
      nsoPush('Push BGP configuration'),
      delay('Wait for session to settle', 60),
      evaluation('Check session is Established', 'state', 'Established'),
    ]),
    inputs: (r) => ({ ...siteInputs(r, ['edge-rtr', 'pe-rtr', 'bdr-rtr']), peer: ipv4(r, '198'), asn: r.int(1000, 64999), carrier: r.pick(CARRIERS), customer: r.pick(CUSTOMERS) }),
    describe: (r, v) => r.pick([
      () => `Set up eBGP peer ${s(v, 'peer')} AS${s(v, 'asn')} on ${s(v, 'device')} for ${s(v, 'customer')}`,
      () => `BGP peering with ${s(v, 'carrier')} on ${s(v, 'device')} (${s(v, 'ticket')})`,
      () => `Add iBGP session from ${s(v, 'device')} to route reflector in ${s(v, 'siteName')}`,
      () => `Transit session with ${s(v, 'carrier')} AS${s(v, 'asn')} at ${s(v, 'siteName')}`,
    ])(),
  },
  {
    name: 'Circuit Decommission',
    description: 'Remove the configuration of a disconnected circuit and retire it in inventory',
    weight: 5,
    steps: steps(['9a', '9b', '9c', '9d'], [
      netboxLookup('getCircuit', 'Look up circuit in inventory', 'circuit'),
      approval('Confirm circuit is disconnected'),
      nsoPush('Remove interface configuration'),
      netboxLookup('updateCircuit', 'Mark circuit decommissioned', 'circuit'),
    ]),
    inputs: (r) => ({ ...siteInputs(r, ['pe-rtr', 'edge-rtr']), circuit: circuitId(r), customer: r.pick(CUSTOMERS), carrier: r.pick(CARRIERS), interface: r.pick(INTERFACES) }),
    describe: (r, v) => r.pick([
      () => `Decommission circuit ${s(v, 'circuit')} for ${s(v, 'customer')} at ${s(v, 'siteName')}`,
      () => `Remove ${s(v, 'interface')} config on ${s(v, 'device')} after ${s(v, 'carrier')} disconnect`,
      () => `Retire ${s(v, 'carrier')} circuit ${s(v, 'circuit')} (${s(v, 'ticket')})`,
    ])(),
  },
];

/** The fixed task key of the start and end pseudo-tasks. */
export const START = 'workflow_start';
export const END = 'workflow_end';

export type Transitions = Record<string, Record<string, { type: 'standard' | 'revert'; state: string }>>;

/**
 * The success chain, plus the branches a real design has: a rejected manual
 * approval ends the job, and a failed evaluation goes back to retry.
 */
export function transitionsOf(wf: WorkflowDef): Transitions {
  const keys = [START, ...wf.steps.map((st) => st.key), END];
  const t: Transitions = {};
  for (let i = 0; i < keys.length - 1; i++) t[keys[i]!] = { [keys[i + 1]!]: { type: 'standard', state: 'success' } };
  t[END] = {};
  wf.steps.forEach((st, i) => {
    if (st.type === 'manual' && keys[i + 2] !== END) t[st.key]![END] = { type: 'standard', state: 'failure' };
    if (st.name === 'evaluation' && i > 0) t[st.key]![wf.steps[i - 1]!.key] = { type: 'revert', state: 'failure' };
  });
  return t;
}
