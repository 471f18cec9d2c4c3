/** The instance SITE_INSTANCE names, for the composition root (src/bootstrap.ts). */
import type { SiteInstance } from '../config';
import { FIRST_INSTANCE } from './instance';
import type { InstanceProfile } from './instance';
import { SECOND_INSTANCE } from './second';

const INSTANCES: Readonly<Record<SiteInstance, InstanceProfile>> = { first: FIRST_INSTANCE, second: SECOND_INSTANCE };

export const instanceNamed = (name: SiteInstance): InstanceProfile => INSTANCES[name];
