/**
 * The pure pieces of nso-sim: XML rendering, content negotiation, the
 * fields grammar, depth pruning and list-key guessing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { negotiate, RESTCONF_TYPES } from '../../../tools/nso-sim/http.ts';
import { listKeyNames, sameName } from '../../../tools/nso-sim/json.ts';
import type { JsonObject } from '../../../tools/nso-sim/json.ts';
import { parseFields, prune, select } from '../../../tools/nso-sim/query.ts';
import { parsePath } from '../../../tools/nso-sim/restconf.ts';
import { assertWellFormedXml } from '../../../tools/nso-sim/test-client.ts';
import { toXml, xmlName } from '../../../tools/nso-sim/xml.ts';

test('toXml repeats elements for lists and leaf-lists, and writes empty leaves and containers as empty elements', () => {
  const xml = toXml({ 'tailf-ncs:devices': { device: [{ name: 'a', tag: ['x', 'y'] }, { name: 'b', flag: [null], empty: {} }] } });
  assert.equal(xml, '<devices xmlns="http://tail-f.com/ns/ncs"><device><name>a</name><tag>x</tag><tag>y</tag></device><device><name>b</name><flag/><empty/></device></devices>');
});

test('toXml escapes text, sanitizes names and declares a namespace only where the module changes', () => {
  const xml = toXml({ 'm:root': { 'a b': '<&>"\'', 'other:x': { y: 1, 'm:z': true }, '9lives': false } });
  assert.equal(xml, '<root xmlns="urn:nso-sim:m"><a_b>&lt;&amp;&gt;&quot;&apos;</a_b><x xmlns="urn:nso-sim:other"><y>1</y><z xmlns="urn:nso-sim:m">true</z></x><_9lives>false</_9lives></root>');
  assertWellFormedXml(xml);
  assert.equal(xmlName('ok-name_1.2'), 'ok-name_1.2');
});

test('toXml uses the default module for unqualified top-level names', () => {
  assert.equal(toXml({ 'dry-run-result': {} }, 'tailf-restconf'), '<dry-run-result xmlns="http://tail-f.com/ns/tailf-restconf"/>');
  assert.equal(toXml({ plain: 'x' }), '<plain>x</plain>');
});

test('negotiate: XML by default and for wildcards, JSON when preferred, null when nothing fits', () => {
  assert.equal(negotiate(undefined, RESTCONF_TYPES), 'xml');
  assert.equal(negotiate('*/*', RESTCONF_TYPES), 'xml');
  assert.equal(negotiate('application/json', RESTCONF_TYPES), 'json');
  assert.equal(negotiate('text/html, application/yang-data+json;q=0.9', RESTCONF_TYPES), 'json');
  assert.equal(negotiate('application/yang-data+json;q=0.1, application/yang-data+xml', RESTCONF_TYPES), 'xml');
  assert.equal(negotiate('application/yang-data+json;q=0', RESTCONF_TYPES), null);
  assert.equal(negotiate('text/html', RESTCONF_TYPES), null);
});

test('parseFields reads names, paths and groups, with ; or , between them', () => {
  const selection = parseFields('a,b/c;d(e;f/g),b/h');
  assert.equal(selection.get('a'), null);
  assert.deepEqual([...(selection.get('b')?.keys() ?? [])], ['c', 'h']);
  assert.deepEqual([...(selection.get('d')?.keys() ?? [])], ['e', 'f']);
  assert.equal(selection.get('d')?.get('f')?.get('g'), null);
  assert.equal(parseFields('a/b,a').get('a'), null, 'a whole subtree wins over a part of it');
  for (const bad of ['', 'a(', 'a)', 'a//b', 'a,(b)', 'a(b))']) assert.throws(() => parseFields(bad), /invalid fields/, bad);
});

test('select applies a selection to each list entry and matches names with or without prefixes', () => {
  const data: JsonObject = { list: [{ name: 'a', 'm:v': 1, w: 2 }, { name: 'b', v: 3 }] };
  assert.deepEqual(select(data, parseFields('list(v)')), { list: [{ 'm:v': 1 }, { v: 3 }] });
});

test('prune cuts below the depth, keeps list keys of cut entries and drops empty lists', () => {
  const data = { c: { leaf: 1, inner: { deep: true } }, list: [{ id: 'k', x: { y: 1 } }], none: [] };
  assert.deepEqual(prune(data, 1), {});
  assert.deepEqual(prune(data, 2), { c: {}, list: [{ id: 'k' }] });
  assert.deepEqual(prune(data, 3), { c: { leaf: 1, inner: {} }, list: [{ id: 'k', x: {} }] });
  assert.deepEqual(prune(data, Infinity), { c: { leaf: 1, inner: { deep: true } }, list: [{ id: 'k', x: { y: 1 } }] });
});

test('list keys are guessed as name, else the first members; names match across prefixes', () => {
  assert.deepEqual(listKeyNames([{ id: '1', name: 'n' }], undefined, 1), ['name']);
  assert.deepEqual(listKeyNames([{ id: '1', x: 2 }], undefined, 1), ['id']);
  assert.deepEqual(listKeyNames([{ a: '1', b: 2, c: 3 }], undefined, 2), ['a', 'b']);
  assert.deepEqual(listKeyNames([], undefined, 1), ['name']);
  assert.ok(sameName('tailf-ncs:device', 'device'));
  assert.ok(!sameName('a:device', 'b:device'));
});

test('parsePath decodes each segment on its own, so encoded / and , stay inside keys', () => {
  assert.deepEqual(parsePath('tailf-ncs:devices/device=ce0/config/ios:interface/GigabitEthernet=0%2F1'), [
    { name: 'tailf-ncs:devices', keys: null },
    { name: 'device', keys: ['ce0'] },
    { name: 'config', keys: null },
    { name: 'ios:interface', keys: null },
    { name: 'GigabitEthernet', keys: ['0/1'] },
  ]);
  assert.deepEqual(parsePath('m:list=a%2Cb,c')[0], { name: 'm:list', keys: ['a,b', 'c'] });
  assert.throws(() => parsePath('devices'), /module-qualified/);
  assert.throws(() => parsePath('m:a//b'), /empty path segment/);
});
