/** The built-in projections, in the order they start. */
import type { Projection } from '../src/projection/projection';
import content from './content';
import users from './users';
import revisions from './revisions';
import terms from './terms';
import menus from './menus';
import menuItems from './menuItems';
import media from './media';
import contactForms from './contactForms';
import settings from './settings';
import comments from './comments';
import idempotency from './idempotency';
import globalStyles from './globalStyles';

const builtIn: readonly Projection[] = [
  content as unknown as Projection,
  users as unknown as Projection,
  revisions as unknown as Projection,
  terms as unknown as Projection,
  menus as unknown as Projection,
  menuItems as unknown as Projection,
  media as unknown as Projection,
  contactForms as unknown as Projection,
  settings as unknown as Projection,
  comments as unknown as Projection,
  idempotency as unknown as Projection,
  globalStyles as unknown as Projection,
];
export default builtIn;
