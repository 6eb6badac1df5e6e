// How a config key is declared, and what is made from the declarations: the
// joi schema, the defaults, the environment map and the TypeScript type.
// The keys themselves are in keys.ts.
import Joi from 'joi';

/** How an environment variable's text becomes the key's value: as it is, split at commas, or parsed as JSON. */
export type EnvForm = 'text' | 'list' | 'json';

interface Common<T> {
  readonly default: T;
  /** The rules for this key's value alone; the keys are assembled into one object schema by their paths. */
  readonly schema: Joi.Schema;
  /** Markdown, one paragraph: the config/README.md table shows it. */
  readonly description: string;
}

interface FromEnv<T> extends Common<T> {
  readonly env: string;
  readonly envForm?: 'list' | 'json';
  /** A valid value other than the default: the tests set the variable to it and find it at the key's path. */
  readonly example: T;
}

interface FileOnly<T> extends Common<T> {
  readonly env?: undefined;
  readonly envForm?: undefined;
  readonly example?: undefined;
}

export type KeySpec<T> = FromEnv<T> | FileOnly<T>;
export type Declaration = Readonly<Record<string, KeySpec<unknown>>>;

/** Declares one key. The type argument is its value's type, which `AppConfig` is made from; it is never inferred. */
export function key<T>(spec: KeySpec<NoInfer<T>>): KeySpec<T> {
  return spec;
}

type Head<P extends string> = P extends `${infer H}.${string}` ? H : P;
type ValueOf<S> = S extends KeySpec<infer T> ? T : never;

/**
 * The nested object type a declaration describes: `{'core.port': KeySpec<number>}`
 * becomes `{core: {port: number}}`. Each top-level name is either a key or the
 * group of the keys below it, one level at a time.
 */
export type ConfigTree<D> = {
  -readonly [H in Head<keyof D & string>]: H extends keyof D
    ? ValueOf<D[H]>
    : ConfigTree<{ [P in keyof D & string as P extends `${H}.${infer R}` ? R : never]: D[P] }>;
};

const PATH = /^[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)*$/;
const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;

/** What is wrong with a declaration (empty when nothing is); each line names the key. */
export function declarationProblems(decl: Declaration): string[] {
  const problems: string[] = [];
  const paths = Object.keys(decl);
  const envs = new Map<string, string>();
  for (const [path, spec] of Object.entries(decl)) {
    if (!PATH.test(path)) problems.push(`${path}: not a dotted path of camelCase names`);
    const group = paths.find((other) => other.startsWith(`${path}.`));
    if (group !== undefined) problems.push(`${path}: is a key and also the group of ${group}`);
    if (spec.description.trim() === '') problems.push(`${path}: has no description`);
    if (spec.env === undefined) continue;
    if (!ENV_NAME.test(spec.env)) problems.push(`${path}: ${spec.env} is not an environment variable name (A-Z, 0-9, _)`);
    const taken = envs.get(spec.env);
    if (taken !== undefined) problems.push(`${path}: ${spec.env} already sets ${taken}`);
    else envs.set(spec.env, path);
  }
  return problems;
}

/** Stops at import when the declaration is inconsistent, so no service starts with it. */
export function checkDeclaration(decl: Declaration): void {
  const problems = declarationProblems(decl);
  if (problems.length > 0) throw new Error(`config/keys.ts:\n${problems.join('\n')}`);
}

type Tree<V> = Map<string, V | Tree<V>>;

/** The declaration as a tree of its paths, each leaf made by `leaf`; Maps, so no key of it reaches a prototype. */
function nest<V>(decl: Declaration, leaf: (spec: KeySpec<unknown>) => V): Tree<V> {
  const root: Tree<V> = new Map();
  for (const [path, spec] of Object.entries(decl)) {
    const parts = path.split('.');
    let node = root;
    for (const part of parts.slice(0, -1)) {
      let next = node.get(part);
      if (!(next instanceof Map)) node.set(part, (next = new Map()));
      node = next;
    }
    node.set(parts[parts.length - 1]!, leaf(spec));
  }
  return root;
}

function toObject<V, R>(tree: Tree<V>, group: (members: Record<string, R>) => R, leaf: (v: V) => R): R {
  const members: Record<string, R> = Object.create(null) as Record<string, R>;
  for (const [name, node] of tree) members[name] = node instanceof Map ? toObject(node, group, leaf) : leaf(node);
  return group(members);
}

/**
 * One object schema of every key. Every key is required: the defaults are
 * laid under every file and variable, so a key missing from the merged
 * config is a bug worth stopping for.
 */
export function schemaOf(decl: Declaration): Joi.ObjectSchema {
  const tree = nest(decl, (spec) => spec.schema);
  return toObject<Joi.Schema, Joi.Schema>(tree, (members) => Joi.object({ ...members }), (s) => s).prefs({ presence: 'required' }) as Joi.ObjectSchema;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every key's default, nested by path; a fresh copy each call. */
export function defaultsOf(decl: Declaration): { [key: string]: Json } {
  const tree = nest(decl, (spec) => structuredClone(spec.default) as Json);
  return toObject<Json, Json>(tree, (members) => ({ ...members }), (v) => v) as { [key: string]: Json };
}

/** Environment variable → the path it sets. */
export function envVarsOf(decl: Declaration): Readonly<Record<string, string>> {
  const map: Record<string, string> = {};
  for (const [path, spec] of Object.entries(decl)) if (spec.env !== undefined) map[spec.env] = path;
  return Object.freeze(map);
}

/** Environment variable → how its text is read. */
export function envFormsOf(decl: Declaration): ReadonlyMap<string, EnvForm> {
  const forms = new Map<string, EnvForm>();
  for (const spec of Object.values(decl)) if (spec.env !== undefined) forms.set(spec.env, spec.envForm ?? 'text');
  return forms;
}
