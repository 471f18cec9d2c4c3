/** The users slice's side of the Accounts port (src/access/accounts.ts), handed to the site by the composition root. */
import type { Accounts } from '../../access/accounts';
import { userStreamId } from './events';
import { recordApplicationPasswordUse } from './operations';

export const userAccounts: Accounts = { streamOf: userStreamId, recordApplicationPasswordUse };
