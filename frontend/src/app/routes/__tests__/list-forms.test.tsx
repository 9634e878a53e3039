import { screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { fake } from '@/testing/supabase-mock'
import { fakeSession, fillFields, renderApp, visibleToasts } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const session = fakeSession()
const userId = session.user.id
const submit = () => screen.getByRole('button', { name: 'Save and continue to payment' })

beforeEach(() => {
  fake.respondWith(() => ({ data: [] }))
})

describe('listing form guards', () => {
  it.each(['/list-property', '/list-product', '/list-land', '/list-service', '/edit-service/0e5a0000-0000-4000-8000-00000000aaaa'])(
    '%s sends signed-out visitors to /login, remembering the page',
    async (path) => {
      const { router } = await renderApp(path)
      await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
      expect(router.state.location.state).toEqual({ from: path })
      await waitFor(() => expect(visibleToasts()[0]).toHaveTextContent('Please log in to continue with this action'))
    },
  )
})

describe('/list-land', () => {
  it('shows the validation messages, then saves every field with the features as a list', async () => {
    fake.respondWith(({ table }) => (table === 'lands' ? { data: { id: 'l1', type: 'Agricultural' } } : { data: [] }))
    const { user } = await renderApp('/list-land', { session })
    await user.click(await screen.findByRole('button', { name: 'Save and continue to payment' }))

    expect(await screen.findByText('Title is required')).toBeInTheDocument()
    expect(screen.getByText('Location is required')).toBeInTheDocument()
    expect(screen.getByText('Enter a price in KES (a whole number, 0 or more)')).toBeInTheDocument()
    expect(screen.getByText('Size must be greater than 0')).toBeInTheDocument()
    expect(screen.getByLabelText('Size')).toHaveAttribute('aria-invalid', 'true')
    expect(screen.getByLabelText('Size')).toHaveAccessibleDescription('Size must be greater than 0')
    expect(fake.requestsOf('lands')).toHaveLength(0)

    expect(screen.getByText('Listing fee: 60 Nestcoins per day. You choose the number of days when you pay.')).toBeInTheDocument()
    await user.selectOptions(screen.getByLabelText('Land Type'), 'Agricultural')
    expect(screen.getByText(/^Listing fee: 45 Nestcoins per day/)).toBeInTheDocument()

    await fillFields(user, {
      Title: 'Two acres near Nanyuki',
      Purpose: 'Lease',
      'Rent per month (KES)': '30000',
      Location: 'Nanyuki',
      Size: '2',
      Unit: 'hectares',
      Features: 'Borehole, Fenced{enter}Title deed',
    })
    await user.click(submit())

    expect(await screen.findByRole('heading', { name: 'Pay and publish' })).toBeInTheDocument()
    const [insert] = fake.requestsOf('lands')
    expect(insert.calls[0]).toEqual([
      'insert',
      {
        title: 'Two acres near Nanyuki',
        location: 'Nanyuki',
        description: null,
        type: 'Agricultural',
        purpose: 'Lease',
        price: 30000,
        size: 2,
        sizeUnit: 'hectares',
        features: ['Borehole', 'Fenced', 'Title deed'],
        images: [],
      },
    ])
  })
})

describe('/list-product', () => {
  it('asks for a price before estimating the fee, validates and saves the value band', async () => {
    fake.respondWith(({ table }) => (table === 'products' ? { data: { id: 'p1', category: 'Kitchen', price: 12000 } } : { data: [] }))
    const { user } = await renderApp('/list-product', { session })
    await user.click(await screen.findByRole('button', { name: 'Save and continue to payment' }))
    expect(await screen.findByText('Name is required')).toBeInTheDocument()
    expect(screen.getByText('Enter a Kenyan phone number, e.g. 0712 345 678')).toBeInTheDocument()
    expect(screen.getByText('Enter the price to see the listing fee per day.')).toBeInTheDocument()

    await fillFields(user, {
      'Product name': 'Cooker with oven',
      Category: 'Kitchen',
      Condition: 'New',
      'Price (KES)': '12000',
    })
    expect(screen.getByText(/^Listing fee: 33 Nestcoins per day/)).toBeInTheDocument()
    await fillFields(user, {
      Location: 'Thika',
      'Contact phone': '0722-000-111',
      'Value range': 'Premium',
    })
    await user.click(submit())

    expect(await screen.findByRole('heading', { name: 'Pay and publish' })).toBeInTheDocument()
    expect(fake.requestsOf('products')[0].calls[0]).toEqual([
      'insert',
      {
        name: 'Cooker with oven',
        price: 12000,
        status: 'New',
        category: 'Kitchen',
        value_range: 'Premium',
        description: null,
        location: 'Thika',
        contact: '0722000111',
        images: [],
      },
    ])
  })
})

describe('/list-property photos', () => {
  it('uploads a picked photo to the images bucket under the user id, shows it and saves its path', async () => {
    const upload = vi.fn(async () => ({ data: {}, error: null }))
    fake.client.storage.from.mockReturnValue({ upload })
    fake.respondWith(({ table }) => (table === 'properties' ? { data: { id: 'p1', type: 'Single Room', purpose: 'Rent', price: 8000 } } : { data: [] }))
    const { user } = await renderApp('/list-property', { session })

    await user.upload(await screen.findByLabelText('Add photos'), new File(['jpeg bytes'], 'room.jpg', { type: 'image/jpeg' }))
    expect(await screen.findByText('1 of 10 photos')).toBeInTheDocument()
    expect(fake.client.storage.from).toHaveBeenCalledWith('images')
    const [[path, , options]] = upload.mock.calls as unknown as [[string, Blob, { contentType: string }]]
    expect(path).toMatch(new RegExp(`^${userId}/[0-9a-f-]{36}\\.jpg$`))
    expect(options.contentType).toBe('image/jpeg')
    expect(screen.getByRole('img', { name: 'Photo 1' }).getAttribute('src')).toContain(`/storage/v1/render/image/public/images/${path}?width=300`)

    await fillFields(user, {
      Title: 'Room in Roysambu',
      'Rent per month (KES)': '8000',
      Location: 'Roysambu',
      'Contact phone': '0712345678',
    })
    await user.click(submit())
    expect(await screen.findByRole('heading', { name: 'Pay and publish' })).toBeInTheDocument()
    expect(fake.requestsOf('properties')[0].calls[0][1]).toMatchObject({ images: [path] })
  })
})

describe('/list-service and /edit-service', () => {
  const service = {
    id: '0e5a0000-0000-4000-8000-00000000aaaa',
    userid: userId,
    name: 'Pwani Movers',
    category: 'Moving',
    location: 'Mombasa',
    description: null,
    services: ['House moving', 'Packing'],
    pricing: [{ title: 'Bedsitter', price: 6000, duration: 'half day' }],
    phone: '0712345678',
    profileimage: null,
  }

  it('validates services, phone and each price row, then saves the prices as a list', async () => {
    fake.respondWith(({ table }) => (table === 'service_providers' ? { data: { ...service, id: 's9' } } : { data: [] }))
    const { user } = await renderApp('/list-service', { session })
    await user.click(await screen.findByRole('button', { name: 'Add a price' }))
    await user.click(submit())
    expect(await screen.findByText('Add at least one service')).toBeInTheDocument()
    expect(screen.getByText('Give this price a name')).toBeInTheDocument()
    expect(screen.getByText('Enter a Kenyan phone number, e.g. 0712 345 678')).toBeInTheDocument()
    expect(screen.getByText(/^Listing fee: 35 Nestcoins per day/)).toBeInTheDocument()

    await fillFields(user, {
      'Business name': 'Pwani Movers',
      Location: 'Mombasa',
      'Contact phone': '+254712345678',
      'Services offered': 'House moving, Packing',
      'Service 1': 'Bedsitter',
      'Price 1 (KES)': '6000',
      'Duration 1': 'half day',
    })
    await user.click(submit())

    expect(await screen.findByRole('heading', { name: 'Pay and publish' })).toBeInTheDocument()
    expect(fake.requestsOf('service_providers')[0].calls[0]).toEqual([
      'insert',
      {
        name: 'Pwani Movers',
        category: 'Moving',
        location: 'Mombasa',
        description: null,
        services: ['House moving', 'Packing'],
        pricing: [{ title: 'Bedsitter', price: 6000, duration: 'half day' }],
        phone: '+254712345678',
        profileimage: null,
      },
    ])
  })

  it("refuses to edit someone else's service", async () => {
    fake.respondWith(() => ({ data: { ...service, userid: 'someone-else' } }))
    await renderApp(`/edit-service/${service.id}`, { session })
    expect(await screen.findByRole('heading', { name: 'This service does not exist or is not yours.' })).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Save changes' })).not.toBeInTheDocument()
  })

  it('edits the owner’s service in place and confirms', async () => {
    fake.respondWith(() => ({ data: service }))
    const { user, router } = await renderApp(`/edit-service/${service.id}`, { session })
    const name = await screen.findByLabelText('Business name')
    expect(name).toHaveValue('Pwani Movers')
    expect(screen.getByLabelText('Services offered')).toHaveValue('House moving\nPacking')
    // The form reads the owner's full row, phone included (visitors' reads leave it out).
    expect(screen.getByLabelText('Contact phone')).toHaveValue('0712345678')
    const read = fake.requestsOf('service_providers').find((request) => request.calls.some(([method]) => method === 'maybeSingle'))!
    expect(read.calls).toEqual(expect.arrayContaining([['select', '*'], ['eq', 'id', service.id], ['eq', 'userid', userId]]))
    expect(screen.queryByText(/Listing fee/)).not.toBeInTheDocument()
    await user.clear(name)
    await user.type(name, 'Pwani Movers Ltd')
    await user.click(screen.getByRole('button', { name: 'Save changes' }))

    await waitFor(() => expect(router.state.location.pathname).toBe(`/service-provider/${service.id}`))
    const update = fake.requestsOf('service_providers').find((request) => request.calls[0][0] === 'update')!
    expect(update.calls[0][1]).toMatchObject({ name: 'Pwani Movers Ltd', services: ['House moving', 'Packing'], phone: '0712345678' })
    expect(update.calls).toContainEqual(['eq', 'id', service.id])
    expect(within(visibleToasts()[0]).getByText('Service updated successfully')).toBeInTheDocument()
  })
})
