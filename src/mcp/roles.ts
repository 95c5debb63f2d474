/**
 * Roles and their permissions: the four built-ins of the spec, changed or extended by
 * `svc.agent-roles.<role>`. Permissions are READ, DIAGNOSE, REMEDIATE and ADMIN.
 */
import type { ResolvedConfig } from '../config/resolved-config.js';
import type { Permission } from '../shared/enums.js';

export const BUILT_IN_ROLES: Readonly<Record<string, readonly Permission[]>> = {
  observer: ['READ'],
  diagnostician: ['READ', 'DIAGNOSE'],
  operator: ['READ', 'DIAGNOSE', 'REMEDIATE'],
  admin: ['READ', 'DIAGNOSE', 'REMEDIATE', 'ADMIN'],
};

export class Roles {
  private readonly roles = new Map<string, ReadonlySet<Permission>>();

  constructor(configured: Readonly<Record<string, readonly Permission[]>> = {}) {
    for (const [role, permissions] of Object.entries({ ...BUILT_IN_ROLES, ...configured })) this.roles.set(role, new Set(permissions));
  }

  static fromConfig(config: ResolvedConfig): Roles {
    const configured: Record<string, Permission[]> = {};
    for (const role of config.names('agent-roles')) configured[role] = config.member<Permission[]>('agent-roles', role)!.value;
    return new Roles(configured);
  }

  permissionsOf(role: string): ReadonlySet<Permission> | undefined {
    return this.roles.get(role);
  }

  names(): string[] {
    return [...this.roles.keys()];
  }
}
