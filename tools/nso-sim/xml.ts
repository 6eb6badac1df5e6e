/**
 * XML from the JSON tree (RFC 7950 XML encoding, simplified): one element per
 * member, repeated elements for lists and leaf-lists, and an `xmlns` wherever
 * the module changes. Good enough for clients that parse the answer; it does
 * not reproduce identityref or instance-identifier prefixes.
 */
import { isObject, localOf, prefixOf } from './json.ts';
import type { Json, JsonObject } from './json.ts';

const NAMESPACES: Record<string, string> = {
  'ietf-restconf': 'urn:ietf:params:xml:ns:yang:ietf-restconf',
  'tailf-ncs': 'http://tail-f.com/ns/ncs',
  'tailf-restconf': 'http://tail-f.com/ns/tailf-restconf',
  'tailf-rest': 'http://tail-f.com/ns/rest',
  'tailf-rest-error': 'http://tail-f.com/ns/tailf-rest-error',
  'tailf-ned-cisco-ios': 'urn:ios',
  'tailf-ned-cisco-ios-xr': 'http://tail-f.com/ned/cisco-ios-xr',
};

export function namespaceOf(module: string): string {
  return NAMESPACES[module] ?? `urn:nso-sim:${module}`;
}

/** Renders each top-level member; `defaultModule` supplies the namespace of unqualified top-level names. */
export function toXml(doc: JsonObject, defaultModule: string | null = null): string {
  return Object.entries(doc)
    .map(([key, value]) => element(key, value, null, defaultModule))
    .join('');
}

function element(key: string, value: Json, parentModule: string | null, fallback: string | null): string {
  if (Array.isArray(value)) return value.map((item) => element(key, item, parentModule, fallback)).join('');
  const module = prefixOf(key) ?? parentModule ?? fallback;
  const name = xmlName(localOf(key));
  const attr = module !== null && module !== parentModule ? ` xmlns="${escapeXml(namespaceOf(module))}"` : '';
  if (isObject(value)) {
    const inner = Object.entries(value)
      .map(([childKey, child]) => element(childKey, child, module, null))
      .join('');
    return inner === '' ? `<${name}${attr}/>` : `<${name}${attr}>${inner}</${name}>`;
  }
  // RFC 7951 writes an empty leaf as [null]; both forms end up as an empty element.
  if (value === null) return `<${name}${attr}/>`;
  return `<${name}${attr}>${escapeXml(String(value))}</${name}>`;
}

/** JSON member names are free text; XML names are not, so invalid characters become `_`. */
export function xmlName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

export function escapeXml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
