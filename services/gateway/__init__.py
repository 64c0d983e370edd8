"""The gateway: the only public door, HTTP and WebSocket for people and bots.

People never touch the bus or the store. The gateway signs them in (guest sessions kept in the
store under the SHA-256 of their id, sent as an HttpOnly, SameSite=Strict cookie), keeps the
lobby (open challenges; a challenge full of players becomes a game), holds every seat's token
itself and acts, views and watches on the seat's behalf: a WebSocket sends each player its own
seat's view of each event (its private events opened by the gateway, for it alone), spectators
the public view. It reaches the services as its own bus user (`gateway`, which may ask what a
player may ask) and its own store user (its keys only); see services.runtime.access.

Modules: `door` (what meets a connection before any route: trusted proxies, allowed hosts,
the header timeout, security headers, WebSocket caps), `people` (sessions, accounts, rate
limits), `lobby` (rulesets, challenges, the tables it made), `play` (acting, views, the event
feed, exports, the house bots), `app` (the HTTP routes), `__main__` (the composition root);
`web/` is the web client it serves (docs/gateway.md).
"""
