/**
 * The second site of the interface (SITE_INSTANCE=second, docs/second-instance.md): a contact-form plug-in adds the
 * `contact-form/v1` namespace, listed after oEmbed's, and registers the writable `ext-disabled` post status; its
 * attachments have no `featured_media`, and the index lists `src` alone for media edit (the other args are still
 * accepted and validated).
 */
import { CONTACT_FORM_NAMESPACE, contactFormRoutes } from '../resources/contactForms/routes';
import type { InstanceProfile } from './instance';

/**
 * The status the plug-in registers (its brand written as `ext`): writable and listable, and otherwise like a draft:
 * not public, not private, readable by those who may edit the item.
 */
const EXT_DISABLED = 'ext-disabled';

export const SECOND_INSTANCE: InstanceProfile = {
  statuses: [EXT_DISABLED],
  namespaces: [{ name: CONTACT_FORM_NAMESPACE, after: 'oembed/1.0' }],
  routes: contactFormRoutes,
  media: { featuredMedia: false, editListedArgs: ['src'] },
};
