"""The edge before every door: caller authentication, per-caller limits and stream budgets (in one process
or shared on Redis), and the gateway's card signatures."""
