/**
 * The event types a webhook may subscribe to: every type of docs/events.md (test/unit/webhookEventTypes.test.ts
 * holds the two together), so that a misspelt type is refused when the webhook is made, not silently never matched.
 */
export const EVENT_TYPES: ReadonlySet<string> = new Set([
  'PostCreated', 'PostUpdated', 'PostRevised', 'PostTrashed', 'PostAutosaved', 'AutosaveDiscarded', 'PostDeleted',
  'UserRegistered', 'UserUpdated', 'UserRolesChanged', 'UserPasswordChanged', 'UserDeleted',
  'ApplicationPasswordCreated', 'ApplicationPasswordRenamed', 'ApplicationPasswordRevoked', 'ApplicationPasswordUsed',
  'TermCreated', 'TermUpdated', 'TermDeleted',
  'AttachmentCreated', 'AttachmentUpdated', 'AttachmentDeleted',
  'MenuCreated', 'MenuUpdated', 'MenuDeleted',
  'MenuItemCreated', 'MenuItemUpdated', 'MenuItemAutosaved', 'MenuItemAutosaveDiscarded', 'MenuItemDeleted',
  'SiteSettingsChanged',
  'ContactFormCreated', 'ContactFormUpdated', 'ContactFormDeleted', 'ContactFormSubmitted',
  'CommentCreated', 'CommentUpdated', 'CommentPostTrashed', 'CommentPostRestored', 'CommentDeleted',
  'GlobalStylesCreated', 'GlobalStylesChanged',
  'IdBlockReserved', 'NameClaimed', 'NameReleased',
  'IdempotencyKeyClaimed', 'IdempotentResponseRecorded', 'IdempotencyKeyReleased', 'IdempotentRequestEnded',
  'WebhookCreated', 'WebhookUpdated', 'WebhookDeleted', 'WebhookDisabled', 'WebhookRedeliveryRequested',
]);
