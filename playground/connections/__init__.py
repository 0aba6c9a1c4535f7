"""Connections: a person's credentials for outside services, kept encrypted in the vault.

A credential is typed into the vault's own form (on a `connection` card or the Connections
page), never into an answer; parts, envelopes and steps carry a reference (the connection's
id), and an agent gets the values only at the moment of use (`TurnContext.connection`).
"""
