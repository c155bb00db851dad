/** The five priority classes xpk installs, lowest first, with their Kubernetes PriorityClass values. */
export const PRIORITIES = [
  {name: 'very-low', value: 100, description: 'Very Low'},
  {name: 'low', value: 250, description: 'Low'},
  {name: 'medium', value: 500, description: 'Medium'},
  {name: 'high', value: 750, description: 'High'},
  {name: 'very-high', value: 1000, description: 'Very High'},
] as const

export type Priority = (typeof PRIORITIES)[number]['name']

export const PRIORITY_NAMES: readonly Priority[] = PRIORITIES.map((p) => p.name)

export const DEFAULT_PRIORITY: Priority = 'medium'
