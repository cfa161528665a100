"""What values are, for the rules (DG103/DG104 today; the fixes and ``verify`` are to ask the same):

- :mod:`.returns`: the :class:`~.returns.Classifier` of returned values (JSON text, never returns,
  or a description of what it is instead) over a ``Knowledge``: the walker's ``Context`` (the
  whole project), or :class:`~.module_returns.ModuleKnowledge` (one module's syntax, for the
  index's return summaries); declared return annotations included
  (:func:`~.returns.annotation_verdict`);
- :mod:`.control`: whether a block always ends in ``return``/``raise``, or only raises;
- :mod:`.declared`: :class:`~.declared.DeclaredTypes`, what code outside the project declares it
  returns (typeshed for the standard library, the environment's stubs and sources);
- :mod:`.flow`: where a value comes from (the outside class it is an instance of; a registry key
  from the caller, the mark of a dispatch point).

Nothing here imports the code it reads.
"""
