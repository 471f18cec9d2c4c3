/** The users slice's side of the Accounts port (src/ports/accounts.ts), handed to the site by the composition root. */
import type { Accounts } from '../../ports/accounts';
import { userStreamId } from './events';
import { recordApplicationPasswordUse } from './operations';

export const userAccounts: Accounts = { streamOf: userStreamId, recordApplicationPasswordUse };
