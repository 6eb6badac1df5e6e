/**
 * The workflow tasks the generated workflows are assembled from: a few
 * WorkFlowEngine utilities and adapter calls, with incoming variables that
 * reference job variables the way real workflows do (`$var.job.NAME`).
 */

export type JobVars = Record<string, string | number>;
export type TaskType = 'automatic' | 'manual' | 'operation';

export interface StepDef {
  /** The method, e.g. `query`. */
  readonly name: string;
  readonly summary: string;
  readonly description: string;
  readonly app: string;
  readonly location: 'Application' | 'Adapter';
  readonly type: TaskType;
  /** UI path for manual tasks. */
  readonly view: string | null;
  readonly incoming: Readonly<Record<string, unknown>>;
  readonly outgoing: Readonly<Record<string, unknown>>;
  /** Run time range in milliseconds. */
  readonly runMs: readonly [number, number];
  /** What the task wrote to its outgoing variables when it completed. */
  readonly result: (v: JobVars) => Record<string, unknown>;
}

const ENGINE = { app: 'WorkFlowEngine', location: 'Application' } as const;

function adapter(app: string, name: string, summary: string, incoming: Record<string, unknown>, result: StepDef['result']): StepDef {
  return {
    name,
    summary,
    description: summary,
    app,
    location: 'Adapter',
    type: 'automatic',
    view: null,
    incoming: { adapter_id: app, ...incoming },
    outgoing: { result: null },
    runMs: [300, 25_000],
    result,
  };
}

export function createChangeRequest(summary = 'Create change request'): StepDef {
  return adapter('ServiceNow', 'createChangeRequest', summary, { body: { short_description: '$var.job.ticket' } }, (v) => ({
    result: { number: v['ticket'], state: 'Scheduled' },
  }));
}

export function closeChangeRequest(summary = 'Close change request'): StepDef {
  return adapter('ServiceNow', 'updateChangeRequest', summary, { id: '$var.job.ticket', body: { state: 'Closed' } }, (v) => ({
    result: { number: v['ticket'], state: 'Closed' },
  }));
}

export function netboxLookup(name: string, summary: string, key = 'device'): StepDef {
  return adapter('Netbox', name, summary, { name: `$var.job.${key}` }, (v) => ({
    result: { name: v[key], status: 'active', site: v['site'] },
  }));
}

export function runCommand(summary: string, command: string): StepDef {
  return adapter('AutomationGateway', 'runCommand', summary, { device: '$var.job.device', command }, (v) => ({
    result: { device: v['device'], command, exit_code: 0 },
  }));
}

export function nsoPush(summary: string): StepDef {
  return adapter('NSO', 'restAction', summary, { device: '$var.job.device', method: 'PATCH', body: '$var.job.config' }, () => ({
    result: [{ result: '204' }],
  }));
}

export function firewallPush(summary: string): StepDef {
  return adapter('Panorama', 'commitPolicy', summary, { firewall: '$var.job.device', rule: '$var.job.rule' }, (v) => ({
    result: { firewall: v['device'], commit: 'success' },
  }));
}

export function gitBackup(summary: string): StepDef {
  return adapter('GitLab', 'createCommit', summary, { repository: 'network/configs', path: '$var.job.device' }, (v) => ({
    result: { path: `${String(v['site'])}/${String(v['device'])}.cfg` },
  }));
}

export function approval(summary: string): StepDef {
  return {
    name: 'ViewData',
    summary,
    description: 'Review the proposed change and approve or reject it',
    ...ENGINE,
    type: 'manual',
    view: '/workflow_engine/task/ViewData',
    incoming: { header: summary, message: '$var.job.description', variables: '' },
    outgoing: {},
    runMs: [60_000, 36 * 3_600_000],
    result: () => ({}),
  };
}

export function makeData(summary: string, template: string): StepDef {
  return {
    name: 'makeData',
    summary,
    description: 'Render a template from job variables',
    ...ENGINE,
    type: 'automatic',
    view: null,
    incoming: { input: template, outputType: 'string', variables: '$var.job.inputs' },
    outgoing: { output: '$var.job.config' },
    runMs: [5, 120],
    result: (v) => ({ output: template.replace('<!device!>', String(v['device'])) }),
  };
}

export function newVariable(summary: string, name: string): StepDef {
  return {
    name: 'newVariable',
    summary,
    description: 'Store a value in a job variable',
    ...ENGINE,
    type: 'operation',
    view: null,
    incoming: { name, value: `$var.job.${name}` },
    outgoing: { value: null },
    runMs: [2, 40],
    result: (v) => ({ value: v[name] ?? null }),
  };
}

export function query(summary: string, path: string): StepDef {
  return {
    name: 'query',
    summary,
    description: 'Read a value out of an object',
    ...ENGINE,
    type: 'automatic',
    view: null,
    incoming: { pass_on_null: false, query: path, obj: '$var.job.inputs' },
    outgoing: { return_data: null },
    runMs: [2, 60],
    result: (v) => ({ return_data: v['device'] ?? null }),
  };
}

export function evaluation(summary: string, variable: string, operand: string): StepDef {
  return {
    name: 'evaluation',
    summary,
    description: 'Compare values and branch on the outcome',
    ...ENGINE,
    type: 'automatic',
    view: null,
    incoming: {
      all_true_flag: true,
      evaluation_groups: [{ all_true_flag: true, evaluations: [{ operand_1: { task: 'job', variable }, operator: '==', operand_2: operand }] }],
    },
    outgoing: { return_value: null },
    runMs: [2, 50],
    result: () => ({ return_value: true }),
  };
}

export function delay(summary: string, seconds: number): StepDef {
  return {
    name: 'delay',
    summary,
    description: 'Wait before continuing',
    ...ENGINE,
    type: 'operation',
    view: null,
    incoming: { time: seconds },
    outgoing: { time_in_milliseconds: null },
    runMs: [seconds * 1000, seconds * 1000 + 50],
    result: () => ({ time_in_milliseconds: seconds * 1000 }),
  };
}
