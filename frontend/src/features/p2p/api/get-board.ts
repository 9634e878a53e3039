import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'

import { BOARD_PAGE_SIZE, type P2pAction, type P2pCurrency } from '@/config/p2p'
import type { Database } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { p2pKeys } from './keys'

export type BoardOffer = Database['public']['Functions']['get_p2p_board']['Returns'][number]
export type BoardSort = 'newest' | 'rate_asc' | 'rate_desc'

/** What the board asks for: filters, search text, order and how many. */
export type BoardQuery = {
  action: P2pAction | null
  currency: P2pCurrency | null
  search: string
  sort: BoardSort
  limit: number
}

export const defaultBoardQuery: BoardQuery = { action: null, currency: null, search: '', sort: 'newest', limit: BOARD_PAGE_SIZE }

/** One page of active offers with each owner's name, KYC badge and record (get_p2p_board). */
export async function getBoard(query: BoardQuery, signal?: AbortSignal): Promise<BoardOffer[]> {
  let request = supabase.rpc('get_p2p_board', {
    p_action: query.action,
    p_currency: query.currency,
    p_search: query.search.trim() || null,
    p_sort: query.sort,
    p_limit: query.limit,
  })
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return (data ?? []).map((row) => ({ ...row, rate_per_unit: Number(row.rate_per_unit) }))
}

export const getBoardQueryOptions = (query: BoardQuery) =>
  queryOptions({
    queryKey: p2pKeys.board(query),
    queryFn: ({ signal }) => getBoard(query, signal),
    placeholderData: keepPreviousData,
  })

export function useBoard(query: BoardQuery, enabled = true) {
  return useQuery({ ...getBoardQueryOptions(query), enabled })
}
