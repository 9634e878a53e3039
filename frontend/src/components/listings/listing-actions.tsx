import { createContext, useContext, type ComponentType, type ReactNode } from 'react'

import type { ListingKind } from '@/lib/listing-fees'

/** What a listing action (e.g. the save heart) is told about the listing it sits on. */
export type ListingActionsProps = {
  kind: ListingKind
  id: string
  /** The listing's title or name, for the action's accessible label. */
  title: string
  /** 'card': an icon over a card's photo; 'detail': a full button on the detail page. */
  variant: 'card' | 'detail'
}

const ListingActionsContext = createContext<ComponentType<ListingActionsProps> | null>(null)

/**
 * Supplies the actions shown on listing cards and detail pages below it.
 * Pages put it in place (app/routes), so the listing features need not know
 * the feature behind it, and screens without it (the My pages) show none.
 */
export function ListingActionsProvider({ component, children }: { component: ComponentType<ListingActionsProps>; children: ReactNode }) {
  return <ListingActionsContext.Provider value={component}>{children}</ListingActionsContext.Provider>
}

/** The slot on a card or detail page: the provided actions, or nothing. */
export function ListingActions(props: ListingActionsProps) {
  const Actions = useContext(ListingActionsContext)
  if (!Actions) return null
  if (props.variant === 'card') {
    return (
      <div className="absolute top-2 right-2 z-10">
        <Actions {...props} />
      </div>
    )
  }
  return <Actions {...props} />
}
