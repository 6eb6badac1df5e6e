/**
 * Accounts, groups and workflow documents the generated jobs refer to. They
 * do not depend on the job seed: seeding twice with different seeds must
 * still point every job at the same directory, and the second run only
 * finds these documents already there.
 */
import type { Doc } from '../../../kernel/index.ts';
import { Rng, hex32 } from './random.ts';
import { END, START, WORKFLOWS, transitionsOf } from './workflows.ts';
import type { WorkflowDef } from './workflows.ts';

export interface SeedAccount {
  readonly _id: string;
  readonly username: string;
  readonly firstname: string;
  readonly groups: readonly string[];
}

export interface SeedGroup {
  readonly _id: string;
  readonly name: string;
  readonly description: string;
}

/** Fixed creation date of the directory, so its documents are identical on every run. */
const DIRECTORY_CREATED = Date.UTC(2023, 0, 16, 14, 5, 12);

/** An id shaped like a MongoDB ObjectId: creation second, then stable filler. */
function objectId(seconds: number, salt: number): string {
  const r = new Rng(0x5eed, salt);
  return hex32(seconds) + hex32(r.u32()) + hex32(r.u32()).slice(0, 2) + hex32(salt).slice(2);
}

const GROUP_DEFS: ReadonlyArray<readonly [string, string]> = [
  ['operations', 'Network operations: runs and watches day-to-day automation'],
  ['engineering', 'Network engineering: designs workflows and handles escalations'],
  ['noc-east', 'Network operations center, east region'],
  ['noc-west', 'Network operations center, west region'],
  ['security', 'Security operations: firewall and compliance changes'],
  ['change-advisory', 'Change advisory board: approves maintenance windows'],
];

export const SEED_GROUPS: readonly SeedGroup[] = GROUP_DEFS.map(([name, description], i) => ({
  _id: objectId(Math.floor(DIRECTORY_CREATED / 1000) + i, 0x100 + i),
  name,
  description,
}));

const ACCOUNT_DEFS: ReadonlyArray<readonly [string, string, readonly string[]]> = [
  ['jdoe', 'John', ['operations', 'noc-east']],
  ['asmith', 'Alice', ['engineering']],
  ['mgarcia', 'Maria', ['operations', 'noc-west']],
  ['kpatel', 'Kiran', ['security', 'change-advisory']],
  ['lchen', 'Li', ['engineering', 'change-advisory']],
  ['rnguyen', 'Robert', ['noc-east']],
  ['tokafor', 'Tunde', ['noc-west', 'operations']],
  ['svc-automation', 'Automation', ['operations']],
];

export const SEED_ACCOUNTS: readonly SeedAccount[] = ACCOUNT_DEFS.map(([username, firstname, groups], i) => ({
  _id: objectId(Math.floor(DIRECTORY_CREATED / 1000) + 60 + i, 0x200 + i),
  username,
  firstname,
  groups,
}));

function meta(): { created: string; updated: string } {
  const iso = new Date(DIRECTORY_CREATED).toISOString();
  return { created: iso, updated: iso };
}

function groupDoc(g: SeedGroup): Doc {
  return { _id: g._id, name: g.name, description: g.description, provenance: 'Local AAA', memberOf: [], assignedRoles: [], inactive: false, _meta: meta() };
}

function accountDoc(a: SeedAccount): Doc {
  const memberOf = a.groups.map((name) => ({ groupId: SEED_GROUPS.find((g) => g.name === name)!._id, aaaManaged: true }));
  return {
    _id: a._id,
    username: a.username,
    firstname: a.firstname,
    email: `${a.username}@example.net`,
    provenance: 'Local AAA',
    inactive: false,
    loggedIn: false,
    memberOf,
    assignedRoles: [],
    gitTokens: {},
    _meta: meta(),
  };
}

/** The stored form of a workflow, as Automation Studio writes it. */
export function workflowDoc(wf: WorkflowDef, index: number): Doc {
  const r = new Rng(0x5eed, 0x300 + index);
  const tasks: Record<string, unknown> = {
    [START]: { name: START, groups: [], nodeLocation: { x: 40, y: 200 } },
    [END]: { name: END, groups: [], nodeLocation: { x: 240 + wf.steps.length * 200, y: 200 } },
  };
  wf.steps.forEach((st, i) => {
    tasks[st.key] = {
      name: st.name,
      canvasName: st.name,
      summary: st.summary,
      description: st.description,
      location: st.location,
      locationType: st.location === 'Adapter' ? st.app : null,
      app: st.app,
      type: st.type,
      displayName: st.app,
      variables: { incoming: st.incoming, outgoing: st.outgoing, error: '', decorators: [] },
      actor: 'Pronghorn',
      groups: [],
      scheduled: false,
      nodeLocation: { x: 240 + i * 200, y: 200 },
    };
  });
  const properties: Record<string, { type: string }> = {};
  for (const key of Object.keys(wf.inputs(r))) properties[key] = { type: 'string' };
  const created = new Date(DIRECTORY_CREATED + (index + 1) * 86_400_000).toISOString();
  const author = SEED_ACCOUNTS[1 + (index % 4)]!._id;
  return {
    _id: r.uuid(),
    name: wf.name,
    description: wf.description,
    type: 'automation',
    tasks,
    transitions: transitionsOf(wf),
    groups: [],
    inputSchema: { type: 'object', properties, required: Object.keys(properties).slice(0, 2) },
    outputSchema: { type: 'object', properties: {} },
    canvasVersion: 3,
    encodingVersion: 1,
    font_size: 12,
    created,
    created_by: author,
    last_updated: created,
    last_updated_by: author,
  };
}

export interface Directory {
  readonly accounts: Doc[];
  readonly groups: Doc[];
  readonly workflows: Doc[];
}

export function generateDirectory(): Directory {
  return {
    accounts: SEED_ACCOUNTS.map(accountDoc),
    groups: SEED_GROUPS.map(groupDoc),
    workflows: WORKFLOWS.map(workflowDoc),
  };
}
