/**
 * What every operations-manager route shares, declared once: the application
 * its methods belong to, the envelope surface, and the two role sets of the
 * real platform (readers of jobs, tasks, automations and triggers; those who
 * control and change them).
 */
import { routeHelper } from '../../../kernel/index.ts';

export const OM = 'OperationsManager';
export const OM_READ_ROLES = ['admin', 'apiread', 'apiwrite', 'engineering', 'operations', 'support'] as const;
export const OM_WRITE_ROLES = ['admin', 'apiwrite', 'engineering', 'operations'] as const;

export const omRoute = routeHelper({ provenance: OM, shape: 'operations-manager' });
