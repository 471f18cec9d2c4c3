/** Runs the second instance's permission rows (secondInstance.ts) against a second-instance site through HTTP. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestResponse, TestSite, TestUser } from '../support/testSite';
import { WHO } from './table';
import type { Who } from './table';
import { SECOND_INSTANCE_TABLE } from './secondInstance';

const test = suite('permissions: second instance');
let t: TestSite;
const users = new Map<Who, TestUser | null>();
let post = 0;

test.before(async () => {
  t = await startTestSite({ instance: 'second' });
  users.set('anonymous', null);
  for (const role of WHO.slice(1) as Exclude<Who, 'anonymous'>[]) users.set(role, await t.createUser(role, role));
  const made = await t.request('POST', '/core/v2/posts', {
    as: users.get('administrator')!,
    body: { title: 'Off', status: 'ext-disabled' },
  });
  post = made.body.id;
});
test.after(async () => t.close());

function observed(response: TestResponse): string {
  const code: string | undefined = response.body?.code;
  if (!code) return String(response.status);
  const inner = code === 'rest_invalid_param' ? Object.values(response.body.data?.details ?? {})[0] : undefined;
  return `${response.status} ${code}${inner ? `/${(inner as { code: string }).code}` : ''}`;
}

const BOUNDARY = '----permissionsBoundary';
const feedbackBody = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="_wpcf7_unit_tag"\r\n\r\nwpcf7-f1-o1\r\n--${BOUNDARY}--\r\n`;

for (const row of SECOND_INSTANCE_TABLE) {
  test(`${row.method} ${row.path}: ${row.variant}`, async () => {
    const mismatches: string[] = [];
    for (const [i, who] of WHO.entries()) {
      const expected = row.cells[i];
      if (expected === null) continue;
      // A fresh form for every cell, so a write by one caller never changes what the next one sees.
      const form = await t.request('POST', '/contact-form/v1/contact-forms?context=save', {
        as: users.get('administrator')!,
        body: { title: 'Fixture' },
      });
      const path = row.path.replace('{form}', String(form.body.id)).replace('{post}', String(post));
      const response = await t.request(row.method, path, {
        as: users.get(who) ?? null,
        ...(row.multipart
          ? {
              raw: { data: feedbackBody, type: `multipart/form-data; boundary=${BOUNDARY}` },
              headers: { 'user-agent': 'permissions/1.0' },
            }
          : row.body
            ? { body: row.body }
            : {}),
      });
      const got = observed(response);
      if (got !== expected) mismatches.push(`${who}: expected ${expected}, got ${got}`);
    }
    assert.equal(mismatches, []);
  });
}

test.run();
