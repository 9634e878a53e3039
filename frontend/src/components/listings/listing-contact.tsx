import { createContext, useContext, type ComponentType, type ReactNode } from 'react'

import type { ListingKind } from '@/lib/listing-fees'

/** What the contact action of a detail page (e.g. "Message the owner") is told about the listing. */
export type ListingContactProps = {
  kind: ListingKind
  id: string
  /** The listing owner's user id: the owner gets no contact action on their own listing. */
  ownerId: string
}

const ListingContactContext = createContext<ComponentType<ListingContactProps> | null>(null)

/**
 * Supplies the contact action shown in a detail page's owner block. Pages
 * put it in place (app/routes), so the listing features need not know the
 * feature behind it.
 */
export function ListingContactProvider({ component, children }: { component: ComponentType<ListingContactProps>; children: ReactNode }) {
  return <ListingContactContext.Provider value={component}>{children}</ListingContactContext.Provider>
}

/** The slot in the owner block: the provided contact action, or nothing. */
export function ListingContact(props: ListingContactProps) {
  const Contact = useContext(ListingContactContext)
  return Contact ? <Contact {...props} /> : null
}
