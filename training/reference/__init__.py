"""Reference results for the standard algorithms on Durak (docs/baselines.md).

Each algorithm trains a 2-player podkidnoy policy for a wall-clock budget on this machine, from one command::

    python -m training.reference dmc --minutes 30 --run-dir runs/reference/dmc-30 --seed 0
    python -m training.reference dqn --minutes 30 --run-dir runs/reference/dqn-30 --seed 0 --resume

Every ``--eval-every`` minutes of training the run writes a checkpoint, exports its greedy policy as a bot file
(``bot.onnx``, which ``durak eval``, ``durak play`` and the ladder load) and plays it against HeuristicBot on
duplicate deals: one line of ``curve.jsonl`` (minutes trained, decisions, the not-fool rate and its interval).
Evaluations do not count against the budget.  ``--resume`` continues a stopped run from its last checkpoint.

The algorithms (``ALGORITHMS``), each trained without any bot of this project as a teacher or an opponent, so
that HeuristicBot and the ladder's bots did not shape them:

* ``dmc``: Deep Monte-Carlo, DouZero's method: a Q-network over state-action features fitted to Monte-Carlo
  returns of epsilon-greedy self-play, on the native self-play vector core (``training.reference.dmc``).
* ``dqn``: Tianshou's DQN at one seat against the random player, on the Gymnasium environment
  (``training.reference.dqn``).
* ``dqn-marl``: Tianshou's DQN as its tic-tac-toe example sets up a two-player game: ``PettingZooEnv``, the
  learner at ``player_0`` and Tianshou's masked random player at the other seat.
* ``nfsp``: OpenSpiel's PyTorch NFSP in self-play on ``python_durak`` (``training.reference.nfsp``).
* ``ppo``: sb3-contrib's MaskablePPO on the Gymnasium environment against the random player
  (``training.reference.ppo``).

``decisions`` in a curve counts the moves chosen by the networks being trained: every seat's in self-play
(``dmc``, ``nfsp``), the learner's alone where it meets the random player (``dqn``, ``dqn-marl``, ``ppo``).
"""

ALGORITHMS = {
    "dmc": "training.reference.dmc:DeepMonteCarlo",
    "dqn": "training.reference.dqn:TianshouDQN",
    "dqn-marl": "training.reference.dqn:TianshouMultiAgentDQN",
    "nfsp": "training.reference.nfsp:OpenSpielNFSP",
    "ppo": "training.reference.ppo:MaskablePPOLearner",
}
"""Name -> the learner class, imported when named (each needs its own library)."""
